import t from 'tap';
import { FUNCTIONS } from '../../../../src/query/promql/functions/registry.js';

// Every function in Prometheus' parser (promql/parser/functions.go), plus holt_winters from 2.x.
const PROMETHEUS_FUNCTIONS = `abs absent absent_over_time acos acosh asin asinh atan atanh avg_over_time ceil changes
clamp clamp_max clamp_min cos cosh count_over_time days_in_month day_of_month day_of_week day_of_year deg end
delta deriv exp first_over_time floor histogram_avg histogram_count histogram_sum histogram_stddev
histogram_stdvar histogram_fraction histogram_quantile histogram_quantiles double_exponential_smoothing hour
idelta increase info irate label_replace label_join max_of last_over_time min_of ln log10 log2 mad_over_time
max_over_time min_over_time ts_of_first_over_time ts_of_max_over_time ts_of_min_over_time ts_of_last_over_time
minute month pi predict_linear present_over_time quantile_over_time rad range rate resets round scalar sgn sin
sinh sort sort_desc sort_by_label sort_by_label_desc sqrt start start_timestamp step stddev_over_time
stdvar_over_time sum_over_time tan tanh time timestamp vector year holt_winters`.split(/\s+/);

t.test('registers every Prometheus function and nothing else', async (t) => {
  t.same([...FUNCTIONS.keys()].sort(), [...PROMETHEUS_FUNCTIONS].sort());
  for (const [name, definition] of FUNCTIONS) t.equal(definition.name, name);
});

t.test('each kind carries its implementation', async (t) => {
  for (const definition of FUNCTIONS.values()) {
    if (definition.kind === 'range') {
      t.type(definition.range, 'function', definition.name);
      t.ok(definition.argTypes.includes('matrix'), `${definition.name} takes a range`);
    } else if (definition.kind === 'elementwise') {
      t.type(definition.elementwise, 'function', definition.name);
      t.equal(definition.argTypes[0], 'vector', `${definition.name} maps a vector`);
    } else {
      t.equal(definition.range, undefined, definition.name);
      t.equal(definition.elementwise, undefined, definition.name);
    }
  }
});

t.test('signatures follow Prometheus', async (t) => {
  const signature = (name: string) => {
    const d = FUNCTIONS.get(name);
    return d && [d.argTypes, d.variadic, d.returnType, d.experimental];
  };
  t.same(signature('rate'), [['matrix'], 0, 'vector', false]);
  t.same(signature('quantile_over_time'), [['scalar', 'matrix'], 0, 'vector', false]);
  t.same(signature('predict_linear'), [['matrix', 'scalar'], 0, 'vector', false]);
  t.same(signature('round'), [['vector', 'scalar'], 1, 'vector', false]);
  t.same(signature('year'), [['vector'], 1, 'vector', false]);
  t.same(signature('label_join'), [['vector', 'string', 'string', 'string'], -1, 'vector', false]);
  t.same(signature('label_replace'), [['vector', 'string', 'string', 'string', 'string'], 0, 'vector', false]);
  t.same(signature('histogram_quantile'), [['scalar', 'vector'], 0, 'vector', false]);
  t.same(signature('double_exponential_smoothing'), [['matrix', 'scalar', 'scalar'], 0, 'vector', true]);
  t.same(signature('holt_winters'), [['matrix', 'scalar', 'scalar'], 0, 'vector', false]);
  t.same(signature('sort_by_label'), [['vector', 'string'], -1, 'vector', true]);
  t.same(signature('info'), [['vector', 'vector'], 1, 'vector', true]);
  t.same(signature('scalar'), [['vector'], 0, 'scalar', false]);
  t.same(signature('time'), [[], 0, 'scalar', false]);
  t.same(signature('pi'), [[], 0, 'scalar', false]);
  t.same(signature('mad_over_time'), [['matrix'], 0, 'vector', true]);
  t.same(signature('first_over_time'), [['matrix'], 0, 'vector', false]);
});

t.test('only functions that act like a selector or edit labels keep the metric name', async (t) => {
  const keeping = [...FUNCTIONS.values()].filter((d) => d.keepsMetricName).map((d) => d.name);
  t.same(keeping.sort(), [
    'first_over_time',
    'info',
    'label_join',
    'label_replace',
    'last_over_time',
    'sort',
    'sort_by_label',
    'sort_by_label_desc',
    'sort_desc',
  ]);
});

t.test('registry entries run the family implementations', async (t) => {
  const window = {
    t: Float64Array.from([0, 10_000, 20_000]),
    v: Float64Array.from([1, 5, 3]),
    lo: 0,
    hi: 3,
    rangeStartMs: -1,
    rangeEndMs: 20_000,
    isCounter: false,
  };
  t.equal(FUNCTIONS.get('max_over_time')?.range?.(window, []), 5);
  t.equal(FUNCTIONS.get('quantile_over_time')?.range?.(window, [0.5]), 3);
  t.equal(FUNCTIONS.get('clamp')?.elementwise?.(10, [0, 5], 0), 5);
  t.equal(FUNCTIONS.get('clamp')?.emptyWhen?.([5, 0]), true);
  t.equal(FUNCTIONS.get('clamp_min')?.emptyWhen, undefined);
  t.equal(FUNCTIONS.get('hour')?.elementwise?.(7200, [], 0), 2);
});
