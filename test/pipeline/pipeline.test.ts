import t from 'tap';
import { TableSet } from '../../src/pipeline/output.js';
import { Pipeline } from '../../src/pipeline/pipeline.js';
import { DROP, type Processor, type ProcessorResult } from '../../src/pipeline/processor.js';
import { compileTransform, TransformRows } from '../../src/pipeline/transform.js';
import type { PipelineRecord } from '../../src/pipeline/value.js';

const NOW = 1n;

function fake(name: string, exec: (r: PipelineRecord) => ProcessorResult): Processor {
  return { name, exec };
}

function pipelineOf(processors: Processor[]): Pipeline {
  const columns = compileTransform(
    [
      { raw: { field: 'a', type: 'string' }, positionOf: () => undefined },
      { raw: { field: 'n', type: 'int64' }, positionOf: () => undefined },
    ],
    1,
  );
  return new Pipeline({ version: 1, processors, rows: new TransformRows(columns, 1), hasTransform: true });
}

const split = fake('vrl', (r) => (r.list as PipelineRecord[]).map((x) => ({ ...x })));
const dropB = fake('filter', (r) => (r.a === 'b' ? DROP : undefined));

const cases: {
  name: string;
  processors: Processor[];
  input: PipelineRecord[];
  rows?: unknown[][];
  failures?: number[];
}[] = [
  { name: 'no processors', processors: [], input: [{ a: 'x', n: 1 }], rows: [['x', 1, NOW]] },
  {
    name: 'drop filters records out silently',
    processors: [dropB],
    input: [{ a: 'a' }, { a: 'b' }, { a: 'c' }],
    rows: [
      ['a', null, NOW],
      ['c', null, NOW],
    ],
  },
  {
    name: 'one-to-many from the last processor',
    processors: [split],
    input: [
      {
        list: [
          { a: 'x', n: 1 },
          { a: 'y', n: 2 },
        ],
      },
      { list: [] },
    ],
    rows: [
      ['x', 1, NOW],
      ['y', 2, NOW],
    ],
  },
  {
    name: 'one-to-many: one bad row fails the whole record',
    processors: [split],
    input: [
      {
        list: [
          { a: 'x', n: 1 },
          { a: 'y', n: 'two' },
        ],
      },
      { list: [{ a: 'z', n: 3 }] },
    ],
    rows: [['z', 3, NOW]],
    failures: [0],
  },
  {
    name: 'arrays from a processor that is not last fail the record',
    processors: [split, dropB],
    input: [{ list: [{ a: 'x' }] }],
    rows: [],
    failures: [0],
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const r = pipelineOf(c.processors).run(c.input, { skipError: true, nowNanos: () => NOW });
    t.same(r.tables[0]?.rows ?? [], c.rows ?? []);
    t.same(
      r.failures.map((f) => f.index),
      c.failures ?? [],
    );
  });
}

t.test('TableSet: rows align to the table, rollback removes new columns and groups', async (t) => {
  const set = new TableSet();
  const a = { name: 'a', type: 'Int64' as const, semantic: 'FIELD' as const };
  const b = { name: 'b', type: 'String' as const, semantic: 'FIELD' as const };
  set.add('', undefined, [a], [1]);
  set.commit();
  set.add('', undefined, [b, a], ['x', 2]);
  set.commit();
  set.add('', { ttl: '1d' }, [{ ...b, name: 'c' }], ['gone']);
  set.rollback();
  t.throws(() => set.add('', undefined, [{ ...a, type: 'String' }], ['bad']), { name: 'RecordError' });
  set.rollback();
  t.same(set.result(), [{ tableSuffix: '', columns: [a, b], rows: [[1], [2, 'x']] }]);
});
