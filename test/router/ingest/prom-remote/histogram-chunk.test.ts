/**
 * Histogram chunks (Prometheus `tsdb/chunkenc` encodings 2 and 3) against bit strings written out
 * field by field from the format, then decoded back with the tests' independent decoder; chunk
 * cutting and counter reset headers; every varbit width.
 */
import t from 'tap';
import { type FloatHistogram, makeHistogram } from '../../../../src/query/promql/histogram/float-histogram.js';
import { encodeHistogramChunks } from '../../../../src/router/ingest/prom-remote/histogram-chunk.js';
import { type DecodedHistogram, decodeHistogramChunk } from '../../../helpers/histogram-chunk-decode.js';

/** Bytes of a bit string ('0'/'1', spaces ignored), zero-padded to whole bytes. */
function bytesOf(bits: string): number[] {
  const clean = bits.replace(/\s+/g, '');
  const out: number[] = [];
  for (let i = 0; i < clean.length; i += 8) out.push(Number.parseInt(clean.slice(i, i + 8).padEnd(8, '0'), 2));
  return out;
}

function hexBits(hex: string): string {
  return BigInt(`0x${hex}`).toString(2).padStart(64, '0');
}

function encodeOne(samples: Array<[number, FloatHistogram]>, integer: boolean) {
  const t = new Float64Array(samples.map(([ms]) => ms));
  return encodeHistogramChunks(
    t,
    samples.map(([, h]) => h),
    integer,
    0,
    samples.length,
  );
}

function sparse(pairs: Array<[number, number]>) {
  return { index: pairs.map(([i]) => i), count: pairs.map(([, c]) => c) };
}

t.test('an integer histogram chunk, bit by bit', async (t) => {
  const h1 = makeHistogram({
    count: 5,
    zeroCount: 1,
    sum: 10,
    positive: sparse([
      [0, 2],
      [1, 2],
    ]),
  });
  const h2 = makeHistogram({
    count: 7,
    zeroCount: 1,
    sum: 15,
    positive: sparse([
      [0, 3],
      [1, 3],
    ]),
  });
  const chunks = encodeOne(
    [
      [1000, h1],
      [2000, h2],
    ],
    true,
  );
  t.equal(chunks.length, 1);
  const c = chunks[0];
  t.match(c, { encoding: 2, minMs: 1000, maxMs: 2000 });
  const expected = [
    '00000000 00000010', // 2 samples
    '00000000', // header: counter reset unknown
    '00000000', // zero threshold 0
    '0', // schema 0
    '10 001', // one positive span
    '10 010  0', // length 2, offset 0
    '0', // no negative spans
    '11110 001111101000', // t 1000 (12-bit varbit)
    '10 101', // count 5
    '10 001', // zero count 1
    hexBits('4024000000000000'), // sum 10
    '10 010', // bucket 0: 2
    '0', // bucket 1: delta 0 to its neighbour
    // sample 2
    '11110 001111101000', // t delta-of-delta 1000
    '10 010', // count: delta-of-delta 2
    '0', // zero count unchanged
    '1 1 01100 000011 101', // sum 15 XOR 10: 12 leading zeros, 3 significant bits 101
    '10 001', // bucket 0: delta-of-delta 1
    '0', // bucket 1: delta-of-delta 0
  ].join('');
  t.same([...(c?.data ?? [])], bytesOf(expected));
  t.same(decodeHistogramChunk(c?.data ?? new Uint8Array(), false), [
    {
      t: 1000,
      hint: 'unknown',
      schema: 0,
      zeroThreshold: 0,
      count: 5,
      zeroCount: 1,
      sum: 10,
      positive: [
        [0, 2],
        [1, 2],
      ],
      negative: [],
      customValues: [],
    },
    {
      t: 2000,
      hint: 'not_reset',
      schema: 0,
      zeroThreshold: 0,
      count: 7,
      zeroCount: 1,
      sum: 15,
      positive: [
        [0, 3],
        [1, 3],
      ],
      negative: [],
      customValues: [],
    },
  ]);
});

t.test('a float histogram chunk, bit by bit', async (t) => {
  const h = makeHistogram({
    schema: -1,
    zeroThreshold: 2 ** -128,
    count: 1.5,
    zeroCount: 0.5,
    sum: 3.25,
    positive: sparse([[-2, 1]]),
  });
  const chunks = encodeOne(
    [
      [1000, h],
      [1015, h],
    ],
    false,
  );
  t.equal(chunks.length, 1);
  t.equal(chunks[0]?.encoding, 3);
  const expected = [
    '00000000 00000010 00000000',
    '01110100', // zero threshold 2^-128 = 0.5·2^-127: exponent -127 + 243 = 116
    '10 111', // schema -1
    '10 001', // one positive span
    '10 001  10 110', // length 1, offset -2
    '0', // no negative spans
    '11110 001111101000', // t 1000
    hexBits('3ff8000000000000'), // count 1.5
    hexBits('3fe0000000000000'), // zero count 0.5
    hexBits('400a000000000000'), // sum 3.25
    hexBits('3ff0000000000000'), // bucket -2: 1
    '110 001111', // t delta 15 (6-bit varbit)
    '0 0 0 0', // count, zero count, sum and bucket unchanged
  ].join('');
  t.same([...(chunks[0]?.data ?? [])], bytesOf(expected));
  const decoded = decodeHistogramChunk(chunks[0]?.data ?? new Uint8Array(), true);
  t.same(
    decoded.map((d) => [d.t, d.count, d.zeroThreshold, d.positive]),
    [
      [1000, 1.5, 2 ** -128, [[-2, 1]]],
      [1015, 1.5, 2 ** -128, [[-2, 1]]],
    ],
  );
});

t.test('custom bucket bounds and an odd zero threshold', async (t) => {
  const h = makeHistogram({
    schema: -53,
    count: 3,
    sum: 2,
    positive: sparse([
      [0, 1],
      [2, 2],
    ]),
    customValues: [0.25, 1, -3.5, 1e9],
    zeroThreshold: 0,
  });
  const odd = makeHistogram({ zeroThreshold: 0.003, count: 1, zeroCount: 1, sum: 0 });
  const [custom] = encodeOne([[5, h]], true);
  const [zero] = encodeOne([[5, odd]], false);
  const decoded = decodeHistogramChunk(custom?.data ?? new Uint8Array(), false)[0] as DecodedHistogram;
  t.same(decoded.customValues, [0.25, 1, -3.5, 1e9]);
  t.same(decoded.positive, [
    [0, 1],
    [2, 2],
  ]);
  const bits = [...(custom?.data ?? [])].map((b) => b.toString(2).padStart(8, '0')).join('');
  // After header, zero threshold 0, schema -53 (9-bit varbit), spans [0,1] [1,1], no negative:
  // 4 bounds, 0.25 → 251 (9-bit varbit uint), 1 → 1001 (12-bit), -3.5 and 1e9 as '0' + 64 bits.
  const layout = [
    '00000000',
    '1110 111001011',
    '10 010  10 001 0  10 001 10 001',
    '0',
    '10 100',
    '1110 011111011',
    '11110 001111101001',
    `0${hexBits('c00c000000000000')}`,
    `0${hexBits('41cdcd6500000000')}`,
  ]
    .join('')
    .replace(/\s+/g, '');
  t.equal(bits.slice(24, 24 + layout.length), layout, 'custom bounds layout');
  t.equal(decodeHistogramChunk(zero?.data ?? new Uint8Array(), true)[0]?.zeroThreshold, 0.003);
  t.equal(zero?.data[3], 255, 'a threshold that is no power of two takes 255 and 64 bits');
});

t.test('chunks are cut at 120 samples, layout changes, counter resets and gauges', async (t) => {
  const T0 = 1_700_000_000_000;
  const samples: Array<[number, FloatHistogram]> = [];
  let ms = T0;
  const add = (h: FloatHistogram) => {
    samples.push([ms, h]);
    ms += 15_000 + (samples.length % 7) * 1_000_003;
  };
  // 130 growing samples with counts far past 2^36 (every varbit width), then a reset,
  // a new bucket, and gauges.
  for (let i = 0; i < 130; i++) {
    const k = i * i * 123_456_789 + 1;
    add(
      makeHistogram({
        count: 3 * k,
        sum: k * 0.5,
        positive: sparse([
          [1, k],
          [2, 2 * k],
        ]),
      }),
    );
  }
  add(
    makeHistogram({
      count: 3,
      sum: 1,
      positive: sparse([
        [1, 1],
        [2, 2],
      ]),
    }),
  );
  add(
    makeHistogram({
      count: 9,
      sum: 2,
      positive: sparse([
        [1, 2],
        [2, 4],
        [3, 3],
      ]),
    }),
  );
  add(makeHistogram({ count: 9, sum: 2, hint: 'gauge', negative: sparse([[-3, 9]]) }));
  add(makeHistogram({ count: 2, sum: 2, hint: 'gauge', negative: sparse([[-3, 2]]) }));
  const chunks = encodeOne(samples, true);
  t.same(
    chunks.map((c) => [((c.data[0] as number) << 8) | (c.data[1] as number), (c.data[2] as number) >> 6]),
    [
      [120, 0b00],
      [10, 0b01],
      [1, 0b10],
      [1, 0b01],
      [2, 0b11],
    ],
    '[samples, header]: unknown, then not reset after a size cut, reset, not reset at a new bucket, gauge',
  );
  const decoded = chunks.flatMap((c) => decodeHistogramChunk(c.data, false));
  t.same(
    decoded.map((d) => [d.t, d.count, d.sum, d.positive, d.negative]),
    samples.map(([time, h]) => [
      time,
      h.count,
      h.sum,
      h.positive.index.map((x, i) => [x, h.positive.count[i]]),
      h.negative.index.map((x, i) => [x, h.negative.count[i]]),
    ]),
    'every sample decodes as encoded',
  );
  t.same(
    chunks.map((c) => [c.minMs, c.maxMs]),
    [
      [samples[0]?.[0], samples[119]?.[0]],
      [samples[120]?.[0], samples[129]?.[0]],
      [samples[130]?.[0], samples[130]?.[0]],
      [samples[131]?.[0], samples[131]?.[0]],
      [samples[132]?.[0], samples[133]?.[0]],
    ],
  );
  const floats = encodeOne(
    samples.map(([time, h]) => [time, { ...h, count: h.count / 3, sum: -h.sum }]),
    false,
  );
  t.same(
    floats.flatMap((c) => decodeHistogramChunk(c.data, true)).map((d) => [d.t, d.count, d.sum, d.positive]),
    samples.map(([time, h]) => [time, h.count / 3, -h.sum, h.positive.index.map((x, i) => [x, h.positive.count[i]])]),
    'float histograms too',
  );
});
