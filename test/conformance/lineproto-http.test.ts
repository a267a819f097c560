/**
 * Every case of shared/conformance/lineproto/cases.json, end to end: written over HTTP, read back
 * through SQL (ok cases), or refused whole with the expected line number (error cases).
 */
import t from 'tap';
import { parseJsonExact } from '../helpers/json.js';
import { type CaseField, type CasePoint, loadLineprotoCases } from '../helpers/lineproto-cases.js';
import { sql, startServer } from '../helpers/server.js';

type Field = CaseField;
type Point = CasePoint;

const SCALE: Record<string, bigint> = { ns: 1n, us: 1000n, ms: 1_000_000n, s: 1_000_000_000n };
const TYPE: Record<Field['type'], string> = {
  float: 'Float64',
  integer: 'Int64',
  uinteger: 'UInt64',
  string: 'String',
  boolean: 'Boolean',
};

const quote = (ident: string) => `"${ident.replace(/"/g, '""')}"`;

/** Points of one series and timestamp merge into one row (last non-null field wins), as stored. */
function mergeExpected(points: Point[]): Point[] {
  const merged = new Map<string, Point>();
  for (const p of points) {
    const key = JSON.stringify([p.measurement, Object.entries(p.tags).sort(), p.timestamp]);
    const prev = merged.get(key);
    merged.set(key, prev ? { ...p, fields: { ...prev.fields, ...p.fields } } : p);
  }
  return [...merged.values()];
}

const cases = loadLineprotoCases();

t.test('line-protocol conformance over HTTP', async (t) => {
  const server = await startServer({ shards: 2 });
  t.teardown(() => server.stop());
  let passed = 0;
  for (const [n, c] of cases.entries()) {
    const db = `lp${n}`;
    await sql(server.url, `CREATE DATABASE ${db}`);
    const before = BigInt(Date.now()) * 1_000_000n;
    const res = await fetch(`${server.url}/v1/lineproto/write?db=${db}&precision=${c.precision ?? 'ns'}`, {
      method: 'POST',
      body: c.input,
    });
    const after = BigInt(Date.now() + 1) * 1_000_000n;
    const text = await res.text();
    const result = await t.test(c.id, async (t) => {
      if (c.expect.result === 'error') {
        t.equal(res.status, 400, 'refused');
        t.match(text, new RegExp(`line ${c.expect.line}\\b`), `names line ${c.expect.line}`);
        const tables = await sql(server.url, 'SHOW TABLES', db);
        t.same(tables.body.output?.[0]?.records?.rows, [], 'nothing was written');
        return;
      }
      t.equal(res.status, 204, text);
      const expected = mergeExpected(c.expect.points);
      const byTable = new Map<string, Point[]>();
      for (const p of expected) byTable.set(p.measurement, [...(byTable.get(p.measurement) ?? []), p]);
      for (const [table, points] of byTable) {
        const q = await fetch(
          `${server.url}/v1/sql?db=${db}&sql=${encodeURIComponent(`SELECT * FROM ${quote(table)}`)}`,
        );
        const body = parseJsonExact(await q.text()) as {
          output: Array<{
            records: { schema: { column_schemas: Array<{ name: string; data_type: string }> }; rows: unknown[][] };
          }>;
        };
        const records = body.output?.[0]?.records;
        t.ok(records, `table ${table} reads back`);
        if (!records) continue;
        const cols = records.schema.column_schemas;
        const rows = records.rows.map((r) => Object.fromEntries(cols.map((col, i) => [col.name, r[i]])));
        t.equal(rows.length, points.length, `${table} has ${points.length} row(s)`);
        for (const p of points) {
          const row = rows.find(
            (r) =>
              Object.entries(p.tags).every(([k, v]) => r[k] === v) &&
              (p.timestamp === null ||
                String(r.greptime_timestamp) === String(BigInt(p.timestamp) * (SCALE[c.precision ?? 'ns'] ?? 1n))),
          );
          t.ok(row, `row for ${JSON.stringify(p)}`);
          if (!row) continue;
          if (p.timestamp === null) {
            const ts = BigInt(String(row.greptime_timestamp));
            t.ok(ts >= before - 1_000_000_000n && ts <= after, 'a missing timestamp is the server time');
          }
          for (const [k, f] of Object.entries(p.fields)) {
            const col = cols.find((x) => x.name === k);
            t.equal(col?.data_type, TYPE[f.type], `${k} is ${TYPE[f.type]}`);
            t.equal(String(row[k]), String(f.value), `${k} = ${f.value}`);
          }
        }
      }
    });
    if ((result as { ok?: boolean } | null)?.ok) passed++;
  }
  t.comment(`lineproto conformance over HTTP: ${passed}/${cases.length} passed`);
});
