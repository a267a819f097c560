import t from 'tap';
import { instantQuery, parsePromql, rangeQuery } from '../../../src/query/promql/engine.js';
import { MemorySource } from '../../../src/query/promql/memory-source.js';
import {
  type Labels,
  PromqlError,
  type SelectRequest,
  type SeriesSamples,
  staleNaN,
} from '../../../src/query/promql/types.js';

const labels = (name: string, extra: Record<string, string> = {}): Labels =>
  [{ name: '__name__', value: name }, ...Object.entries(extra).map(([n, value]) => ({ name: n, value }))].sort(
    (a, b) => (a.name < b.name ? -1 : 1),
  );

/** A memory source that records every select request. */
class CountingSource extends MemorySource {
  readonly requests: SelectRequest[] = [];
  override async select(request: SelectRequest, signal?: AbortSignal): Promise<SeriesSamples[]> {
    this.requests.push(request);
    return super.select(request, signal);
  }
}

function counterSource(): CountingSource {
  const source = new CountingSource();
  for (let k = 0; k <= 120; k++) {
    source.add(labels('requests_total', { job: 'a' }), k * 60_000, k);
    source.add(labels('requests_total', { job: 'b' }), k * 60_000, 2 * k);
  }
  return source;
}

async function failure(promise: Promise<unknown>): Promise<PromqlError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PromqlError) return error;
    throw error;
  }
  throw new Error('query succeeded');
}

t.test('a range query reads each selector once for the whole range', async (t) => {
  const source = counterSource();
  const result = await rangeQuery(
    'sum(rate(requests_total[5m])) + sum(requests_total offset 1m)',
    600_000,
    6_000_000,
    60_000,
    { source },
  );
  t.equal(result.resultType, 'matrix');
  t.equal(source.requests.length, 2, 'one read per selector, not one per step');
  t.same(source.requests[0], {
    matchers: [{ name: '__name__', op: '=', value: 'requests_total' }],
    startMs: 600_000 - 300_000,
    endMs: 6_000_000,
  });
  t.same(
    { startMs: source.requests[1]?.startMs, endMs: source.requests[1]?.endMs },
    { startMs: 600_000 - 60_000 - 300_000, endMs: 6_000_000 - 60_000 },
    'offset and lookback shift the window',
  );
});

t.test('a subquery reads storage once for all its steps', async (t) => {
  const source = counterSource();
  await rangeQuery('max_over_time(rate(requests_total[2m])[10m:1m])', 1_200_000, 3_600_000, 60_000, { source });
  t.equal(source.requests.length, 1);
});

t.test('range query results are sorted by labels and scalars become one {} series', async (t) => {
  const source = counterSource();
  const vector = await rangeQuery('requests_total', 0, 120_000, 60_000, { source });
  t.same(vector.resultType === 'matrix' && vector.series.map((s) => s.labels.find((l) => l.name === 'job')?.value), [
    'a',
    'b',
  ]);
  const scalar = await rangeQuery('time() * 2', 0, 120_000, 60_000, { source });
  t.same(scalar, {
    resultType: 'matrix',
    series: [{ labels: [], t: [0, 60_000, 120_000], v: [0, 120, 240] }],
    warnings: [],
    infos: [],
  });
});

t.test('instant queries answer scalars, strings and range vectors in their own shapes', async (t) => {
  const source = counterSource();
  t.same(await instantQuery('1 + 1', 5000, { source }), {
    resultType: 'scalar',
    t: 5000,
    v: 2,
    warnings: [],
    infos: [],
  });
  t.same(await instantQuery('"text"', 5000, { source }), {
    resultType: 'string',
    t: 5000,
    v: 'text',
    warnings: [],
    infos: [],
  });
  const matrix = await instantQuery('requests_total{job="b"}[2m]', 600_000, { source });
  t.same(matrix.resultType === 'matrix' && matrix.series, [
    { labels: labels('requests_total', { job: 'b' }), t: [540_000, 600_000], v: [18, 20] },
  ]);
});

t.test('range queries refuse what Prometheus refuses', async (t) => {
  const source = counterSource();
  t.match(await failure(rangeQuery('"x"', 0, 10, 1, { source })), {
    errorType: 'bad_data',
    message: 'invalid expression type "string" for range query, must be Scalar or instant Vector',
  });
  t.match(await failure(rangeQuery('requests_total[5m]', 0, 10, 1, { source })), {
    errorType: 'bad_data',
    message: /"range vector"/,
  });
  t.match(await failure(rangeQuery('up', 0, 10, 0, { source })), { errorType: 'bad_data', message: /step widths/ });
  t.match(await failure(rangeQuery('up', 10, 0, 1, { source })), { errorType: 'bad_data', message: /end timestamp/ });
  t.match(await failure(rangeQuery('up', 0, 11_001_000, 1000, { source })), {
    errorType: 'bad_data',
    message: /11,000 points/,
  });
});

t.test('duration expressions resolve against the query step and range', async (t) => {
  const source = counterSource();
  const windowed = await rangeQuery(
    'count_over_time(requests_total{job="a"}[step() * 3])',
    600_000,
    1_200_000,
    120_000,
    { source },
  );
  t.same(windowed.resultType === 'matrix' && windowed.series[0]?.v, [6, 6, 6, 6, 6, 6]);
  const ranged = await rangeQuery('count_over_time(requests_total{job="a"}[range()])', 600_000, 1_200_000, 600_000, {
    source,
  });
  t.same(ranged.resultType === 'matrix' && ranged.series[0]?.v, [10, 10]);
  t.match(await failure(instantQuery('requests_total[step()]', 600_000, { source })), {
    errorType: 'bad_data',
    message: /duration must be greater than 0/,
  });
});

t.test('name removal is delayed to the end, then label sets must be unique', async (t) => {
  const source = counterSource();
  const grouped = await instantQuery('sum by (__name__) (requests_total)', 600_000, { source });
  t.same(grouped.resultType === 'vector' && grouped.samples.map((s) => s.labels), [labels('requests_total')]);
  for (let k = 0; k <= 10; k++) source.add(labels('other_total', { job: 'a' }), k * 60_000, k);
  t.match(await failure(instantQuery('sum by (__name__) (rate({job="a"}[5m]))', 600_000, { source })), {
    errorType: 'execution',
    message: 'vector cannot contain metrics with the same labelset',
  });
  t.match(await failure(instantQuery('-{job="a"}', 600_000, { source })), {
    errorType: 'execution',
    message: 'vector cannot contain metrics with the same labelset',
  });
});

t.test('staleness markers from storage end a series and are never returned', async (t) => {
  const source = new MemorySource();
  source.add(labels('g'), 0, 1);
  source.add(labels('g'), 60_000, staleNaN());
  const before = await instantQuery('g', 30_000, { source });
  t.same(before.resultType === 'vector' && before.samples.map((s) => s.v), [1]);
  const after = await instantQuery('g', 90_000, { source });
  t.same(after.resultType === 'vector' && after.samples, []);
  const raw = await instantQuery('g[5m]', 90_000, { source });
  t.same(raw.resultType === 'matrix' && raw.series[0]?.v, [1], 'range vectors leave the marker out');
});

t.test('annotations carry the position of the expression they are about', async (t) => {
  const source = new MemorySource();
  source.add(labels('temperature'), 0, 1);
  source.add(labels('temperature'), 60_000, 2);
  const query = 'sum(rate(temperature[5m]))';
  const result = await instantQuery(query, 60_000, { source });
  t.same(result.infos, [
    'PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "temperature" (1:10)',
  ]);
  const unpositioned = await instantQuery(parsePromql(query), 60_000, { source });
  t.same(unpositioned.infos, [
    'PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "temperature"',
  ]);
  const warned = await instantQuery('quantile(2, temperature)', 60_000, { source });
  t.same(warned.warnings, ['PromQL warning: quantile value should be between 0 and 1, got 2 (1:10)']);
});

t.test('an aborted signal stops evaluation as canceled or timed out', async (t) => {
  const source = counterSource();
  const canceled = new AbortController();
  canceled.abort();
  t.match(await failure(instantQuery('requests_total', 0, { source, signal: canceled.signal })), {
    errorType: 'canceled',
  });
  const timedOut = new AbortController();
  timedOut.abort(new DOMException('deadline', 'TimeoutError'));
  t.match(await failure(rangeQuery('requests_total', 0, 60_000, 1000, { source, signal: timedOut.signal })), {
    errorType: 'timeout',
  });

  // Aborted while the evaluation is under way: the next step or series check notices.
  const midway = new AbortController();
  const slow = new (class extends MemorySource {
    override async select(request: SelectRequest, signal?: AbortSignal): Promise<SeriesSamples[]> {
      const result = await source.select(request, signal);
      midway.abort();
      return result;
    }
  })();
  t.match(
    await failure(
      rangeQuery('sum(rate(requests_total[5m]))', 0, 3_600_000, 60_000, { source: slow, signal: midway.signal }),
    ),
    {
      errorType: 'canceled',
    },
  );
});

t.test('vector matching errors name the offending series', async (t) => {
  const source = new MemorySource();
  source.add(labels('left', { a: '1' }), 0, 1);
  source.add(labels('right', { a: '1', b: 'x' }), 0, 1);
  source.add(labels('right', { a: '1', b: 'y' }), 0, 2);
  t.match(await failure(instantQuery('left + on(a) right', 0, { source })), {
    errorType: 'execution',
    message:
      'found duplicate series for the match group {a="1"} on the right hand-side of the operation: [{__name__="right", a="1", b="x"}, {__name__="right", a="1", b="y"}];many-to-many matching not allowed: matching labels must be unique on one side',
  });
  const grouped = await instantQuery('right * on(a) group_left left', 0, { source });
  t.same(grouped.resultType === 'vector' && grouped.samples.map((s) => s.v), [1, 2]);
  t.match(await failure(instantQuery('right + ignoring(b) left', 0, { source })), {
    message: 'multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)',
  });
});
