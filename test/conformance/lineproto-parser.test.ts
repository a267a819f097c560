/**
 * Every case of shared/conformance/lineproto/cases.json against the parser alone: ok cases compare
 * measurement, tags, field types and values and the raw timestamp; error cases must throw and name
 * the expected line. Prints `lineproto conformance: N/44 passed`.
 */
import t from 'tap';
import { parsePrecision } from '../../src/router/http/params.js';
import { DbError, ErrorCode } from '../../src/shared/errors.js';
import { LineCaches, type LinePoint, parseLineProtocol } from '../../src/shared/ingest/lineproto/parser.js';
import { type CaseField, type CasePoint, loadLineprotoCases } from '../helpers/lineproto-cases.js';

/** One cache for the whole file, as a decoding thread keeps one across requests. */
const caches = new LineCaches();

type Field = CaseField;
type Point = CasePoint;

const cases = loadLineprotoCases();

/** The parser's point in the corpus' shape: maps keyed by name, integers as decimal strings. */
function asCorpusPoint(p: LinePoint): Point {
  const tags: Record<string, string> = {};
  p.tagKeys.forEach((k, i) => {
    tags[k] = p.tagValues[i] as string;
  });
  const fields: Record<string, Field> = {};
  p.fieldKeys.forEach((k, i) => {
    const value = p.fieldValues[i];
    const type = p.fieldKinds[i] as Field['type'];
    fields[k] = { type, value: typeof value === 'bigint' ? value.toString() : (value as number | string | boolean) };
  });
  return { measurement: p.measurement, tags, fields, timestamp: p.timestamp === null ? null : p.timestamp.toString() };
}

let passed = 0;

t.test('line-protocol conformance against the parser', async (t) => {
  for (const c of cases) {
    await t.test(c.id, async (t) => {
      const precision = parsePrecision(c.precision);
      const body = Buffer.from(c.input, 'utf8');
      if (c.expect.result === 'ok') {
        const batch = parseLineProtocol(body, precision, caches);
        const ok = t.same(batch.points.map(asCorpusPoint), c.expect.points, 'points match');
        // Float values must be identical doubles, not merely close.
        let exact = true;
        c.expect.points.forEach((want, i) => {
          for (const [k, f] of Object.entries(want.fields)) {
            const got = batch.points[i]?.fieldValues[batch.points[i]?.fieldKeys.indexOf(k) ?? -1];
            if (f.type === 'float' && !Object.is(got, f.value)) exact = false;
          }
        });
        t.ok(exact, 'float fields are the exact doubles');
        if (ok && exact) passed++;
      } else {
        const line = c.expect.line;
        let thrown: unknown;
        try {
          parseLineProtocol(body, precision, caches);
        } catch (err) {
          thrown = err;
        }
        const ok =
          t.ok(thrown instanceof DbError, 'throws a DbError') &&
          t.equal((thrown as DbError).code, ErrorCode.InvalidArguments, 'an InvalidArgument') &&
          t.match(
            (thrown as DbError).message,
            new RegExp(`^Failed to parse InfluxDB line protocol: line ${line}: `),
            `names line ${line} (${c.expect.reason})`,
          );
        if (ok) passed++;
      }
    });
  }
  console.log(`lineproto conformance: ${passed}/${cases.length} passed`);
  t.equal(passed, cases.length, 'every case passes');
});
