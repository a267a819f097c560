import t from 'tap';
import { DbError } from '../../src/shared/errors.js';
import { effectiveTtlMs, parseTtlMs, tryTtlMs } from '../../src/shared/ttl.js';
import type { DatabaseSchema, TableSchema } from '../../src/shared/types.js';

t.test('reads humantime durations, forever and instant as GreptimeDB does', async (t) => {
  t.equal(tryTtlMs('30s'), 30_000);
  t.equal(tryTtlMs('10m'), 600_000);
  t.equal(tryTtlMs('7d'), 7 * 86_400_000);
  t.equal(tryTtlMs('1w'), 7 * 86_400_000);
  t.equal(tryTtlMs('1h30m'), 5_400_000);
  t.equal(tryTtlMs('1h 30m'), 5_400_000);
  t.equal(tryTtlMs('FOREVER'), null, 'case does not matter');
  t.equal(tryTtlMs(''), null, 'empty is forever');
  t.equal(tryTtlMs('0s'), null, 'a zero duration is forever');
  t.equal(tryTtlMs('Instant'), 0);
  t.equal(tryTtlMs('500us'), 1, 'a sub-millisecond duration does not become instant');
});

t.test('refuses anything else with a 400-class error', async (t) => {
  for (const bad of ['abc', '10', '1x', '-1h', '1.5h', 'forever!']) {
    t.equal(tryTtlMs(bad), undefined, bad);
    t.throws(() => parseTtlMs(bad, 'table'), DbError, bad);
  }
  t.throws(
    () => parseTtlMs('instant', 'database'),
    /Failed to parse value instant into key ttl/,
    'a database may not be instant',
  );
  t.equal(parseTtlMs('instant', 'table'), 0);
});

t.test("a table without its own ttl takes its database's", async (t) => {
  const db: DatabaseSchema = { name: 'd', options: { ttl: '1h' }, createdAtMs: 0 };
  const table = (options: Record<string, string>) => ({ options }) as TableSchema;
  t.equal(effectiveTtlMs(table({}), db), 3_600_000);
  t.equal(effectiveTtlMs(table({ ttl: '2d' }), db), 2 * 86_400_000);
  t.equal(effectiveTtlMs(table({ ttl: 'forever' }), db), null, "the table's forever wins");
  t.equal(effectiveTtlMs(table({}), { ...db, options: {} }), null);
});
