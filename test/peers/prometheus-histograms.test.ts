/**
 * Native histograms between ShoalDB and a real Prometheus (the Debian package, 2.42, with
 * `--enable-feature=native-histograms`):
 *
 * 1. The same integer histograms are remote-written to ShoalDB and to a Prometheus "store"
 *    (its remote write receiver). A streamed remote read (STREAMED_XOR_CHUNKS) of both must
 *    decode to the same histograms with the same hints, and the first HISTOGRAM chunks of both
 *    must hold the same bits up to the shorter one's end (Prometheus cuts where its time-aligned
 *    head chunks end, ShoalDB at 120 samples). Prometheus' own chunks are the reference the test decoder is checked against.
 * 2. Not checked here: Prometheus reading ShoalDB through `remote_read`. 2.42's remote read
 *    client asks for SAMPLES only and drops `TimeSeries.histograms` from the answer (a float
 *    series written beside them reads back, the histograms do not), so it cannot show anything
 *    about ShoalDB; test/peers/prometheus.test.ts covers that path for floats.
 *
 * Float histograms are left out: 2.42 neither accepts them over remote write nor knows the
 * FLOAT_HISTOGRAM chunk encoding (test/router/ingest/prom-remote/histogram-chunk.test.ts and
 * test/http/prom-remote-histograms.test.ts cover them). Every Prometheus is stopped by PID in teardown.
 */
import t from 'tap';
import { type DecodedHistogram, decodeHistogramChunk } from '../helpers/histogram-chunk-decode.js';
import { type HistogramSpec, histogramMessage, writeBody } from '../helpers/prom-histograms.js';
import { decodeChunkedBody, postRemoteWrite, readRequestBytes, snappyBlock } from '../helpers/prom-remote.js';
import {
  prometheusMissingReason,
  prometheusRemoteWrite,
  type RunningPrometheus,
  startPrometheus,
} from '../helpers/prometheus-peer.js';
import { startServer, type TestServer } from '../helpers/server.js';

const missing = prometheusMissingReason();
const FEATURES = ['--enable-feature=native-histograms'];
const STEP_MS = 15_000;
// Recent samples: a Prometheus head only takes samples near its newest one.
const T0 = Math.floor((Date.now() - 60 * 60_000) / STEP_MS) * STEP_MS;

/** Integer histogram k of a series whose counts grow with k over a fixed bucket layout. */
function growing(k: number, timestamp: number, resetHint = 0): HistogramSpec {
  return {
    float: false,
    count: 13 * k + 1,
    sum: 3.5 * k + 0.25,
    schema: 2,
    zeroThreshold: 2 ** -128,
    zeroCount: k,
    negative: [
      [-1, k],
      [0, 2 * k],
    ],
    positive: [
      [-3, k],
      [-2, 3 * k],
      [5, 4 * k + 1],
      [6, k],
    ],
    timestamp,
    resetHint,
  };
}

const SERIES: Array<{ name: string; specs: HistogramSpec[] }> = [
  // Past 120 samples: two chunks.
  { name: 'peer_latency_seconds', specs: Array.from({ length: 150 }, (_, i) => growing(i + 1, T0 + i * STEP_MS)) },
  // A counter reset halfway (counts drop): a new chunk with the reset header.
  {
    name: 'peer_restarts_seconds',
    specs: Array.from({ length: 20 }, (_, i) => growing(i < 10 ? i + 5 : i - 9, T0 + i * STEP_MS)),
  },
  // Gauge histograms (reset hint GAUGE = 3): counts go up and down in one chunk.
  {
    name: 'peer_queue_depth',
    specs: Array.from({ length: 12 }, (_, i) => growing(1 + (i % 4), T0 + i * STEP_MS, 3)),
  },
];

function writeRequest(): Buffer {
  return writeBody(
    SERIES.map((s) => ({
      labels: [
        { name: '__name__', value: s.name },
        { name: 'job', value: 'peer' },
      ],
      histograms: s.specs.map(histogramMessage),
    })),
  );
}

interface StreamedSeries {
  name: string;
  chunks: Array<{ type: number; min: number; max: number; data: Uint8Array }>;
}

/** A streamed remote read of the series `name` at `readUrl`. */
async function streamedRead(readUrl: string, name: string): Promise<StreamedSeries[]> {
  const res = await fetch(readUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-read-version': '0.1.0',
    },
    body: snappyBlock(
      readRequestBytes([{ start: T0 - 1, end: T0 + 200 * STEP_MS, matchers: [['__name__', 'EQ', name]] }], [1]),
    ),
  });
  const body = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`remote read of ${readUrl}: ${res.status} ${new TextDecoder().decode(body)}`);
  const out: StreamedSeries[] = [];
  for (const frame of decodeChunkedBody(body)) {
    for (const s of frame.series) {
      const name = s.labels.__name__ ?? '';
      const last = out[out.length - 1];
      if (last && last.name === name) last.chunks.push(...s.chunks);
      else out.push({ name, chunks: [...s.chunks] });
    }
  }
  return out;
}

function samplesIn(chunk: Uint8Array): number {
  return ((chunk[0] as number) << 8) | (chunk[1] as number);
}

/** Indexes of the samples that open a chunk. */
function chunkStarts(s: StreamedSeries): number[] {
  const out: number[] = [];
  let at = 0;
  for (const c of s.chunks) {
    out.push(at);
    at += samplesIn(c.data);
  }
  return out;
}

function decodeAll(s: StreamedSeries): DecodedHistogram[] {
  return s.chunks.flatMap((c) => {
    if (c.type !== 2) throw new Error(`${s.name}: chunk encoding ${c.type}, expected HISTOGRAM (2)`);
    return decodeHistogramChunk(c.data, false);
  });
}

t.test('native histograms: ShoalDB and a real Prometheus agree', { skip: missing ?? false }, async (t) => {
  const shoal: TestServer = await startServer();
  t.teardown(() => shoal.stop());
  const store: RunningPrometheus = await startPrometheus(
    'hist-store',
    () => 'global:\n  scrape_interval: 1m\n',
    (stop) => t.teardown(stop),
    [...FEATURES, '--web.enable-remote-write-receiver'],
  );

  const body = writeRequest();
  t.equal((await postRemoteWrite(shoal.url, body)).status, 204, 'ShoalDB took the histograms');
  const toStore = await prometheusRemoteWrite(store.url, body);
  t.equal(toStore.status, 204, `Prometheus took them: ${toStore.text}`);

  // --- 1. streamed remote read: the same histograms in the same chunk format ---
  for (const { name, specs } of SERIES) {
    const [a, extra] = await streamedRead(`${shoal.url}/v1/metricsapi/read`, name);
    t.equal(extra, undefined, `${name}: one series from ShoalDB`);
    const decodedOurs = decodeAll(a as StreamedSeries);
    const hints = decodedOurs.map((h) => h.hint);
    if (name === 'peer_queue_depth')
      t.ok(
        hints.every((h) => h === 'gauge'),
        'gauge histograms stay gauges',
      );
    if (name === 'peer_restarts_seconds') t.equal(hints[10], 'reset', 'the reset starts a chunk marked as one');
    t.same(
      decodedOurs.map((h) => [h.t, h.count, h.zeroCount, h.sum, h.positive, h.negative]),
      specs.map((s) => [s.timestamp, s.count, s.zeroCount, s.sum, s.positive, s.negative]),
      `${name}: ShoalDB's chunks hold what was written`,
    );
    if (name !== 'peer_latency_seconds') {
      // Prometheus 2.42 re-encodes chunks for streamed reads and fails mid-stream wherever counts
      // drop, resets and gauges alike ("detected unexpected counter reset in histogram"): those
      // are checked against what was written only.
      continue;
    }
    const [b] = await streamedRead(`${store.url}/api/v1/read`, name);
    const decodedTheirs = decodeAll(b as StreamedSeries);
    t.same(
      decodedOurs.map(({ hint, ...h }) => h),
      decodedTheirs.map(({ hint, ...h }) => h),
      `${name}: decodes to what Prometheus' own chunks hold`,
    );
    // Where each side starts a chunk the reader cannot know the hint; elsewhere they agree.
    const starts = new Set([...chunkStarts(a as StreamedSeries), ...chunkStarts(b as StreamedSeries)]);
    t.same(
      decodedOurs.map((h, i) => (starts.has(i) ? 'chunk start' : h.hint)),
      decodedTheirs.map((h, i) => (starts.has(i) ? 'chunk start' : h.hint)),
      `${name}: the same counter reset hints`,
    );
    // Prometheus re-encodes what it sends, cutting where its head's time-aligned chunks end
    // (which moves with the clock); ShoalDB cuts at 120 samples. The first chunks of both hold
    // the same samples up to the shorter one's end, and then the shorter one's bits (but its last,
    // padded, byte) begin the longer one.
    const ours = a?.chunks[0]?.data ?? new Uint8Array();
    const theirs = b?.chunks[0]?.data ?? new Uint8Array();
    const [shorter, longer] = samplesIn(ours) <= samplesIn(theirs) ? [ours, theirs] : [theirs, ours];
    t.ok(samplesIn(shorter) >= 2, 'both first chunks hold several samples');
    const end = samplesIn(shorter) === samplesIn(longer) ? shorter.length : shorter.length - 1;
    t.equal(
      Buffer.from(shorter.subarray(2, end)).toString('hex'),
      Buffer.from(longer.subarray(2, end)).toString('hex'),
      `${name}: byte for byte the chunk Prometheus sends, for the ${samplesIn(shorter)} samples both hold`,
    );
  }
});
