import t from 'tap';
import { parseExpression } from '../../../src/query/sql/parse/parser.js';
import { Binder } from '../../../src/query/sql/plan/binder.js';
import { Scope } from '../../../src/query/sql/plan/scope.js';
import { extractPruning, residualFilter } from '../../../src/query/sql/plan/time-range.js';
import type { ColumnSchema, DataType } from '../../../src/shared/types.js';

const COLUMNS: ColumnSchema[] = [
  { id: 1, name: 'host', type: 'String', semantic: 'TAG', nullable: true },
  { id: 2, name: 'dc', type: 'String', semantic: 'TAG', nullable: true },
  { id: 3, name: 'ts', type: 'TimestampMillisecond', semantic: 'TIMESTAMP', nullable: false },
  { id: 4, name: 'v', type: 'Float64', semantic: 'FIELD', nullable: true },
];

function bound(where: string, timezone = 'UTC') {
  const scope = new Scope(
    COLUMNS.map((c) => ({ name: c.name, type: c.type, qualifier: ['t'], path: ['t'], schema: c })),
  );
  const filter = new Binder({ scope, timezone, aggregateError: null }).bind(parseExpression(where));
  let time: { slot: number; type: DataType } | null = null;
  const stringTags = new Map<number, number>();
  scope.scannedColumns().forEach((ci, slot) => {
    const c = COLUMNS[ci] as ColumnSchema;
    if (c.semantic === 'TIMESTAMP') time = { slot, type: c.type };
    if (c.semantic === 'TAG') stringTags.set(slot, c.id);
  });
  return { filter, columns: { time, stringTags } as Parameters<typeof extractPruning>[1] };
}

function prune(where: string, timezone = 'UTC') {
  const { filter, columns } = bound(where, timezone);
  return extractPruning(filter, columns);
}

t.test('the residual filter keeps what the time bounds do not enforce, and nothing else', async (t) => {
  const residual = (where: string) => {
    const { filter, columns } = bound(where);
    return residualFilter(filter, columns.time);
  };
  t.equal(residual('ts >= 1000 AND ts < 2000'), null, 'a pure time range leaves nothing to evaluate');
  t.match(residual("ts >= 1000 AND host = 'a' AND ts < 2000"), { kind: 'compare', op: '=' });
  const both = residual('ts >= 1000 AND v > 1 AND v < 9 AND ts < 2000');
  t.match(both, { kind: 'and', left: { kind: 'compare', op: '>' }, right: { kind: 'compare', op: '<' } });
  t.match(residual('ts >= 1000 OR v > 1'), { kind: 'or' }, 'a time comparison under OR stays');
});

t.test('>= and < give an inclusive lower and exclusive upper bound', async (t) => {
  t.match(prune('ts >= 1000 AND ts < 2000'), { timeMin: 1000n, timeMax: 2000n });
});

t.test('> and <= shift the bounds by one unit', async (t) => {
  t.match(prune('ts > 1000 AND ts <= 2000'), { timeMin: 1001n, timeMax: 2001n });
});

t.test('equality gives a one-unit range and BETWEEN an inclusive one', async (t) => {
  t.match(prune('ts = 5'), { timeMin: 5n, timeMax: 6n });
  t.match(prune('ts BETWEEN 10 AND 20'), { timeMin: 10n, timeMax: 21n });
});

t.test('a literal on the left flips the operator', async (t) => {
  t.match(prune('1000 <= ts AND 2000 > ts'), { timeMin: 1000n, timeMax: 2000n });
});

t.test('string literals are read in the session zone', async (t) => {
  t.match(prune("ts >= '2024-01-30 00:00:00'", 'Asia/Shanghai'), { timeMin: 1706544000000n });
  t.match(prune("ts >= '2024-01-30 00:00:00'"), { timeMin: 1706572800000n });
});

t.test('several bounds on the time index intersect', async (t) => {
  t.match(prune('ts > 10 AND ts > 20 AND ts < 100 AND ts < 50'), { timeMin: 21n, timeMax: 50n });
});

t.test('sub-unit literals widen the range to whole units', async (t) => {
  const p = prune("ts > '1970-01-01 00:00:00.0005' AND ts <= '1970-01-01 00:00:00.0025'");
  t.equal(p.timeMin, 1n);
  t.equal(p.timeMax, 3n);
});

t.test('OR and NOT give no time bound', async (t) => {
  const p = prune('ts > 10 OR v > 1');
  t.equal(p.timeMin, undefined);
  t.equal(p.timeMax, undefined);
  t.equal(prune('NOT ts > 10').timeMin, undefined);
});

t.test('tag equality and IN become series filters', async (t) => {
  t.same(prune("host = 'a' AND dc IN ('x', 'y') AND v > 1").seriesFilter, [
    { columnId: 1, values: ['a'] },
    { columnId: 2, values: ['x', 'y'] },
  ]);
  t.same(prune("'a' = host").seriesFilter, [{ columnId: 1, values: ['a'] }]);
});

t.test('negated or OR-ed tag conditions do not prune series', async (t) => {
  t.same(prune("host != 'a'").seriesFilter, []);
  t.same(prune("host NOT IN ('a')").seriesFilter, []);
  t.same(prune("host = 'a' OR dc = 'b'").seriesFilter, []);
});
