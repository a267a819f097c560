/**
 * Every PromQL function family over real HTTP, against a real Prometheus (the Debian package,
 * 2.42): the same series are remote-written to ShoalDB and to a Prometheus with its remote write
 * receiver, then each query of the table below is asked of both HTTP APIs, as an instant query
 * and as a range query, and the answers must agree: the same result type, the same label sets,
 * the same timestamps, and values equal to within 1e-9 relative (NaN and ±Inf as Prometheus
 * writes them).
 *
 * No window here starts on a sample: Prometheus 3 (which ShoalDB follows) leaves a range's first
 * instant out, 2.42 takes it in. Evaluation times fall 7 s after a sample, and samples 7 s after a
 * multiple of 15 s, where subqueries evaluate their inner expression.
 * Functions that 2.42 does not have (limitk, limit_ratio, duration expressions, sort_by_label,
 * mad_over_time, double_exponential_smoothing, info) are covered by Prometheus' own scripts in
 * test/conformance/promql.test.ts; `holt_winters`, 2.42's name, is asked here.
 *
 * Installs the Debian package when the binary is missing (`.ci/run` does it up front) and skips,
 * saying why, only when that is not possible. Prometheus is stopped by PID in teardown.
 */
import t from 'tap';
import { postRemoteWrite, snappyBlock, type TestSeries, writeRequestBytes } from '../helpers/prom-remote.js';
import {
  prometheusMissingReason,
  prometheusRemoteWrite,
  type RunningPrometheus,
  startPrometheus,
} from '../helpers/prometheus-peer.js';
import { startServer, type TestServer } from '../helpers/server.js';

const missing = prometheusMissingReason();

const STEP_MS = 15_000;
const SAMPLES = 200;
// Recent samples: a Prometheus head only takes samples near its newest one. Samples sit 7 s past
// a multiple of 15 s, so that no subquery's instants (multiples of its step) fall on one either.
const T0 = Math.floor((Date.now() - 55 * 60_000) / STEP_MS) * STEP_MS + 7_000;
/** An instant 7 s after sample 150, and a range query's span and step (its instants 7 s off too). */
const AT_S = (T0 + 150 * STEP_MS + 7_000) / 1000;
const RANGE = { start: (T0 + 60 * STEP_MS + 7_000) / 1000, end: (T0 + 190 * STEP_MS + 7_000) / 1000, step: 60 };

/** A deterministic value in [0, 1) for (series, sample). */
function noise(series: number, k: number): number {
  const x = Math.sin(series * 12.9898 + k * 78.233) * 43758.5453;
  return x - Math.floor(x);
}

function samples(count: number, value: (k: number) => number): TestSeries['samples'] {
  return Array.from({ length: count }, (_, k) => ({ timestamp: T0 + k * STEP_MS, value: value(k) }));
}

/** Counters (one with a reset), gauges (one that stops), classic histogram buckets, an info metric. */
function dataset(): TestSeries[] {
  const series: TestSeries[] = [];
  let n = 0;
  for (const instance of ['a', 'b', 'c']) {
    for (const code of ['200', '500']) {
      const id = n++;
      const perStep = code === '200' ? 5 + id : 0.25 * (id + 1);
      series.push({
        labels: { __name__: 'fn_requests_total', job: 'api', instance, code },
        samples: samples(SAMPLES, (k) => {
          // Instance b restarts at sample 120: its counters start again from a small value.
          const since = instance === 'b' && k >= 120 ? k - 120 : k;
          return Math.round(since * perStep + 10 * noise(id, k) * (since > 0 ? 1 : 0));
        }),
      });
    }
    series.push({
      labels: { __name__: 'fn_build_info', instance, version: `1.${instance.charCodeAt(0) - 96}` },
      samples: samples(SAMPLES, () => 1),
    });
  }
  for (let r = 1; r <= 5; r++) {
    const id = n++;
    // r5 stops reporting at sample 100: absent_over_time, lookback and count see it go.
    series.push({
      labels: { __name__: 'fn_temperature', room: `r${r}`, floor: String(1 + (r % 2)) },
      samples: samples(r === 5 ? 100 : SAMPLES, (k) => 20 * Math.sin((k + 13 * r) / 17) + r - 3 + noise(id, k)),
    });
  }
  const bounds = ['0.1', '0.5', '1', '2.5', '+Inf'];
  for (const job of ['api', 'db']) {
    const id = n++;
    let total = 0;
    const perBucket: number[][] = bounds.map(() => []);
    const sums: number[] = [];
    for (let k = 0; k < SAMPLES; k++) {
      // Observations each step, spread over the buckets by the series' own noise.
      let cumulative = 0;
      const adds = [3, 5, 2, 1, 0.5].map((w, b) => Math.round(w * (job === 'api' ? 2 : 1) * (1 + noise(id + b, k))));
      for (let b = 0; b < bounds.length; b++) {
        cumulative += adds[b] as number;
        const previous = k === 0 ? 0 : (perBucket[b]?.[k - 1] as number);
        perBucket[b]?.push(previous + cumulative);
      }
      total += cumulative * 0.37;
      sums.push(Math.round(total * 1000) / 1000);
    }
    bounds.forEach((le, b) => {
      series.push({
        labels: { __name__: 'fn_latency_seconds_bucket', job, le },
        samples: samples(SAMPLES, (k) => perBucket[b]?.[k] as number),
      });
    });
    series.push({
      labels: { __name__: 'fn_latency_seconds_count', job },
      samples: samples(SAMPLES, (k) => perBucket[bounds.length - 1]?.[k] as number),
    });
    series.push({
      labels: { __name__: 'fn_latency_seconds_sum', job },
      samples: samples(SAMPLES, (k) => sums[k] as number),
    });
  }
  return series;
}

/** The one query whose right answer is empty whenever it is asked. */
const ABSENT_PRESENT = 'absent(fn_temperature)';

/** The table: a family, and queries that use every function of it. */
const FAMILIES: Array<{ family: string; queries: string[] }> = [
  {
    family: 'selectors and modifiers',
    queries: [
      'fn_temperature',
      'fn_temperature{floor="2"}',
      'fn_temperature{room=~"r[13]"}',
      'fn_temperature{room!~"r[13]", floor!="1"}',
      'fn_temperature offset 10m',
      `fn_temperature @ ${(T0 + 40 * STEP_MS + 7_000) / 1000}`,
      'fn_temperature[2m]',
      '{__name__=~"fn_temp.*", room="r2"}',
    ],
  },
  {
    family: 'counters',
    queries: [
      'rate(fn_requests_total[5m])',
      'irate(fn_requests_total[5m])',
      'increase(fn_requests_total[10m])',
      'resets(fn_requests_total[1h])',
      'changes(fn_requests_total[10m])',
    ],
  },
  {
    family: 'gauges',
    queries: [
      'delta(fn_temperature[10m])',
      'idelta(fn_temperature[5m])',
      'deriv(fn_temperature[10m])',
      'predict_linear(fn_temperature[10m], 600)',
      'holt_winters(fn_temperature[10m], 0.5, 0.3)',
    ],
  },
  {
    family: 'over time',
    queries: [
      'avg_over_time(fn_temperature[10m])',
      'min_over_time(fn_temperature[10m])',
      'max_over_time(fn_temperature[10m])',
      'sum_over_time(fn_temperature[10m])',
      'count_over_time(fn_temperature[10m])',
      'quantile_over_time(0.9, fn_temperature[10m])',
      'stddev_over_time(fn_temperature[10m])',
      'stdvar_over_time(fn_temperature[10m])',
      'last_over_time(fn_temperature[10m])',
      'present_over_time(fn_temperature[10m])',
      'absent_over_time(fn_temperature{room="r5"}[5m])',
      'absent_over_time(fn_nothing[5m])',
    ],
  },
  {
    family: 'math',
    queries: [
      'abs(fn_temperature)',
      'ceil(fn_temperature)',
      'floor(fn_temperature)',
      'round(fn_temperature)',
      'round(fn_temperature, 0.25)',
      'exp(fn_temperature / 10)',
      'ln(abs(fn_temperature))',
      'log2(abs(fn_temperature))',
      'log10(abs(fn_temperature))',
      'sqrt(abs(fn_temperature))',
      'sgn(fn_temperature)',
      'clamp(fn_temperature, -5, 5)',
      'clamp_min(fn_temperature, 0)',
      'clamp_max(fn_temperature, 0)',
      'fn_temperature % 7',
      'fn_temperature ^ 2',
    ],
  },
  {
    family: 'trigonometry',
    queries: [
      'sin(fn_temperature)',
      'cos(fn_temperature)',
      'tan(fn_temperature / 10)',
      'asin(fn_temperature / 30)',
      'acos(fn_temperature / 30)',
      'atan(fn_temperature)',
      'sinh(fn_temperature / 10)',
      'cosh(fn_temperature / 10)',
      'tanh(fn_temperature)',
      'asinh(fn_temperature)',
      'acosh(abs(fn_temperature) + 1)',
      'atanh(fn_temperature / 30)',
      'deg(fn_temperature)',
      'rad(fn_temperature)',
      'pi() * 2',
      // `+ 0`: Prometheus 3 drops the metric name after atan2, as after the other arithmetic
      // operators; 2.42 kept it.
      '(fn_temperature atan2 fn_temperature offset 5m) + 0',
    ],
  },
  {
    family: 'time and date',
    queries: [
      'time()',
      'timestamp(fn_temperature)',
      'minute()',
      'hour(timestamp(fn_temperature))',
      'day_of_week()',
      'day_of_month()',
      'day_of_year()',
      'days_in_month()',
      'month()',
      'year(vector(1700000000))',
    ],
  },
  {
    family: 'labels',
    queries: [
      'label_replace(fn_temperature, "where", "room-$1", "room", "r(.*)")',
      'label_replace(fn_build_info, "instance", "", "instance", ".*")',
      'label_join(fn_build_info, "both", "/", "instance", "version")',
    ],
  },
  {
    family: 'aggregations',
    queries: [
      'sum(fn_temperature)',
      'sum by (floor) (fn_temperature)',
      'avg without (room) (fn_temperature)',
      'min(fn_temperature)',
      'max by (floor) (fn_temperature)',
      'count(fn_temperature)',
      'group by (floor) (fn_temperature)',
      'stddev(fn_temperature)',
      'stdvar by (floor) (fn_temperature)',
      'topk(2, fn_temperature)',
      'bottomk(2, fn_temperature)',
      'topk by (floor) (1, fn_temperature)',
      'quantile(0.75, fn_temperature)',
      'count_values("value", floor(fn_temperature / 10))',
      'sum(rate(fn_requests_total[5m])) by (code)',
    ],
  },
  {
    family: 'binary operators and vector matching',
    queries: [
      'fn_temperature + 1',
      '2 * fn_temperature - 3',
      'fn_temperature > 5',
      'fn_temperature > bool 5',
      'fn_temperature == bool fn_temperature offset 1m',
      'rate(fn_requests_total{code="500"}[5m]) / ignoring(code) rate(fn_requests_total{code="200"}[5m])',
      'sum by (instance) (rate(fn_requests_total[5m])) / on(instance) group_left(version) fn_build_info',
      'rate(fn_requests_total[5m]) * on(instance) group_left(version) fn_build_info',
      'fn_temperature and fn_temperature > 0',
      'fn_temperature or fn_build_info',
      'fn_temperature unless fn_temperature{floor="1"}',
      '1 + 2 * 3',
      'scalar(sum(fn_build_info)) * fn_temperature',
    ],
  },
  {
    family: 'sorting, absence, conversion',
    queries: [
      'sort(fn_temperature)',
      'sort_desc(fn_temperature)',
      'absent(fn_nothing{job="x"})',
      ABSENT_PRESENT,
      'vector(7)',
      'scalar(fn_temperature{room="r1"})',
      'scalar(fn_temperature)',
    ],
  },
  {
    family: 'histograms (classic buckets)',
    queries: [
      'histogram_quantile(0.9, rate(fn_latency_seconds_bucket[5m]))',
      'histogram_quantile(0.5, sum by (le) (rate(fn_latency_seconds_bucket[5m])))',
      'histogram_quantile(0.99, rate(fn_latency_seconds_bucket{job="db"}[10m]))',
      'rate(fn_latency_seconds_sum[5m]) / rate(fn_latency_seconds_count[5m])',
    ],
  },
  {
    family: 'subqueries',
    queries: [
      'max_over_time(rate(fn_requests_total[5m])[30m:1m])',
      'avg_over_time(fn_temperature[10m:30s])',
      'min_over_time(deriv(fn_temperature[5m])[20m:2m] offset 5m)',
    ],
  },
];

/** Queries that Prometheus refuses: ShoalDB must refuse them with the same status and error type. */
const REFUSED: string[] = [
  // Two series become one label set once `room` is gone (422, execution).
  'label_replace(fn_temperature, "room", "", "room", ".*")',
  // A many-to-many match without group_left (422, execution).
  'fn_requests_total / on(instance) fn_requests_total',
  // Parse errors (400, bad_data).
  'sum(fn_temperature',
  'rate(fn_temperature)',
  'fn_temperature[5m] + 1',
  'topk(fn_temperature, 2)',
  'nosuchfunction(fn_temperature)',
];

interface Answer {
  status: number;
  resultType?: string | undefined;
  result?: unknown;
  error?: string | undefined;
  errorType?: string | undefined;
}

async function ask(base: string, path: string, params: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${base}/${path}?${new URLSearchParams(params)}`);
  const body = (await res.json()) as {
    status?: string;
    error?: string;
    errorType?: string;
    data?: { resultType: string; result: unknown };
  };
  return {
    status: res.status,
    resultType: body.data?.resultType,
    result: body.data?.result,
    error: body.error,
    errorType: body.errorType,
  };
}

type Point = [number, string];

/** `labels → points` of an answer, the labels as sorted JSON. */
function seriesOf(answer: Answer): Map<string, Point[]> {
  const out = new Map<string, Point[]>();
  if (answer.resultType === 'scalar' || answer.resultType === 'string') {
    out.set('{}', [answer.result as Point]);
    return out;
  }
  for (const r of answer.result as Array<{ metric: Record<string, string>; value?: Point; values?: Point[] }>) {
    const key = JSON.stringify(Object.entries(r.metric).sort(([a], [b]) => (a < b ? -1 : 1)));
    out.set(key, r.values ?? (r.value ? [r.value] : []));
  }
  return out;
}

/** Why two sample values differ, or null when they agree. */
function valueProblem(ours: string, theirs: string): string | null {
  if (ours === theirs) return null;
  const a = Number(ours);
  const b = Number(theirs);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return `${ours} ≠ ${theirs}`;
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return Math.abs(a - b) <= 1e-9 * scale + 1e-12 ? null : `${ours} ≠ ${theirs}`;
}

/** What differs between ShoalDB's answer and Prometheus', or null when they agree. */
function difference(ours: Answer, theirs: Answer): string | null {
  if (ours.status !== theirs.status) return `status ${ours.status} ≠ ${theirs.status} (${ours.error ?? theirs.error})`;
  if (theirs.status !== 200) return null;
  if (ours.resultType !== theirs.resultType) return `result type ${ours.resultType} ≠ ${theirs.resultType}`;
  const a = seriesOf(ours);
  const b = seriesOf(theirs);
  const onlyOurs = [...a.keys()].filter((k) => !b.has(k));
  const onlyTheirs = [...b.keys()].filter((k) => !a.has(k));
  if (onlyOurs.length > 0 || onlyTheirs.length > 0) {
    return `series differ: only ShoalDB ${onlyOurs.slice(0, 3).join(' ')}; only Prometheus ${onlyTheirs.slice(0, 3).join(' ')}`;
  }
  for (const [key, points] of b) {
    const mine = a.get(key) as Point[];
    if (mine.length !== points.length) return `${key}: ${mine.length} points ≠ ${points.length}`;
    for (let i = 0; i < points.length; i++) {
      const [tOurs, vOurs] = mine[i] as Point;
      const [tTheirs, vTheirs] = points[i] as Point;
      if (tOurs !== tTheirs) return `${key}: point ${i} at ${tOurs} ≠ ${tTheirs}`;
      const problem = valueProblem(vOurs, vTheirs);
      if (problem) return `${key} at ${tTheirs}: ${problem}`;
    }
  }
  return null;
}

/** The order of an instant vector's series, for the sorting functions. */
function orderOf(answer: Answer): string[] {
  return (answer.result as Array<{ metric: Record<string, string> }>).map((r) => JSON.stringify(r.metric));
}

t.test('every PromQL function family answers as a real Prometheus does', { skip: missing ?? false }, async (t) => {
  const shoal: TestServer = await startServer();
  t.teardown(() => shoal.stop());
  const prom: RunningPrometheus = await startPrometheus(
    'functions',
    () => 'global:\n  scrape_interval: 1m\n',
    (stop) => t.teardown(stop),
    ['--web.enable-remote-write-receiver'],
  );

  const body = snappyBlock(writeRequestBytes(dataset()));
  t.equal((await postRemoteWrite(shoal.url, body)).status, 204, 'ShoalDB took the series');
  const toProm = await prometheusRemoteWrite(prom.url, body);
  t.equal(toProm.status, 204, `Prometheus took them: ${toProm.text}`);

  const ourApi = `${shoal.url}/v1/metricsapi/api/v1`;
  const theirApi = `${prom.url}/api/v1`;
  let asked = 0;
  for (const { family, queries } of FAMILIES) {
    t.test(family, async (t) => {
      for (const query of queries) {
        const instant = { query, time: String(AT_S) };
        const [ours, theirs] = await Promise.all([ask(ourApi, 'query', instant), ask(theirApi, 'query', instant)]);
        t.equal(theirs.status, 200, `Prometheus answers ${query}: ${theirs.error ?? ''}`);
        const d = difference(ours, theirs);
        t.ok(d === null, `instant ${query}${d ? `: ${d}` : ''}`);
        let answered = theirs.status === 200 && seriesOf(theirs).size > 0;
        if (query.startsWith('sort') && ours.status === 200 && theirs.status === 200) {
          t.same(orderOf(ours), orderOf(theirs), `${query} keeps Prometheus' order`);
        }
        // A range vector is not a range query's result in either system.
        if (!/\]$/.test(query)) {
          const range = { query, start: String(RANGE.start), end: String(RANGE.end), step: String(RANGE.step) };
          const [o, p] = await Promise.all([ask(ourApi, 'query_range', range), ask(theirApi, 'query_range', range)]);
          t.equal(p.status, 200, `Prometheus answers the range query ${query}: ${p.error ?? ''}`);
          const dr = difference(o, p);
          t.ok(dr === null, `range ${query}${dr ? `: ${dr}` : ''}`);
          answered ||= seriesOf(p).size > 0;
        }
        // Agreeing on nothing proves nothing: every query but the one meant to find nothing
        // must give Prometheus something to compare, at the instant or over the range.
        t.equal(answered, query !== ABSENT_PRESENT, `${query}: Prometheus has data to compare`);
        asked++;
      }
    });
  }
  t.test('refusals', async (t) => {
    for (const query of REFUSED) {
      const instant = { query, time: String(AT_S) };
      const [ours, theirs] = await Promise.all([ask(ourApi, 'query', instant), ask(theirApi, 'query', instant)]);
      t.not(theirs.status, 200, `Prometheus refuses ${query}`);
      t.same(
        { status: ours.status, errorType: ours.errorType },
        { status: theirs.status, errorType: theirs.errorType },
        `${query}: refused alike (Prometheus: ${theirs.error}; ShoalDB: ${ours.error})`,
      );
      asked++;
    }
  });
  t.teardown(() => t.comment(`${asked} queries compared with Prometheus`));
});
