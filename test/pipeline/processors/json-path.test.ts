import { jsonPath } from '../../../src/pipeline/processors/json-path.js';
import type { PipelineRecord } from '../../../src/pipeline/value.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('json_path', jsonPath, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('json_path', jsonPath, cases);

const store: PipelineRecord = {
  book: [
    { title: 'A', price: 8, tags: ['x'] },
    { title: 'B', price: 12 },
    { title: 'C', price: 9, tags: ['y', 'z'] },
  ],
  bicycle: { color: 'red', price: 19 },
};

function query(path: string, extra: Record<string, unknown> = {}): ProcessorCase {
  return {
    name: path,
    options: { field: 's, out', json_path: path, ...extra },
    input: { s: store },
    expected: { s: store },
  };
}

function withOut(c: ProcessorCase, out: unknown): ProcessorCase {
  return { ...c, name: `${c.name} → ${JSON.stringify(out)}`, expected: { s: store, out } as PipelineRecord };
}

check([
  withOut(query('$'), [store]),
  withOut(query('$.bicycle.color'), ['red']),
  withOut(query("$['bicycle']['color']"), ['red']),
  withOut(query('$["bicycle"].price'), [19]),
  withOut(query('$.book[0].title'), ['A']),
  withOut(query('$.book[-1].title'), ['C']),
  withOut(query('$.book[*].title'), ['A', 'B', 'C']),
  withOut(query('$.book.*.price'), [8, 12, 9]),
  withOut(query('$.book[0,2].title'), ['A', 'C']),
  withOut(query('$.book[1:].title'), ['B', 'C']),
  withOut(query('$.book[:2].title'), ['A', 'B']),
  withOut(query('$.book[::-1].title'), ['C', 'B', 'A']),
  withOut(query('$..price'), [8, 12, 9, 19]),
  withOut(query('$..tags[*]'), ['x', 'y', 'z']),
  withOut(query("$.bicycle['color','price']"), ['red', 19]),
  withOut(query('$.nothing'), []),
  withOut(query('$.book[7]'), []),
  withOut(query('$.book.[1].title'), ['B']),
  withOut(query('$.book[?(@.tags)].title'), ['A', 'C']),
  withOut(query('$.book[?(@.price > 8 && @.price < 12)].title'), ['C']),
  withOut(query("$.book[?(@.title == 'B' || !(@.price >= 9))].title"), ['A', 'B']),
  withOut(query('$.book[?(@.tags[0] == "y")].price'), [9]),
  withOut(query('$[?(@.color)].price'), [19]),
  withOut(query('$.bicycle.color', { result_index: 0 }), 'red'),
  withOut(query('$.book[*].title', { result_index: 1 }), 'B'),
  withOut(query('$.book[*].title', { result_index: 5 }), null),
  {
    name: 'a scalar input',
    options: { field: 'n', json_path: '$', result_index: 0 },
    input: { n: 5 },
    expected: { n: 5 },
  },
  {
    name: 'in place on each field',
    options: { fields: ['a', 'b'], json_path: '$.v' },
    input: { a: { v: 1 }, b: { v: [2] } },
    expected: { a: [1], b: [[2]] },
  },
  { name: 'ignore_missing', options: { field: 's', json_path: '$', ignore_missing: true }, input: {}, expected: {} },
  {
    name: 'missing',
    options: { field: 's', json_path: '$' },
    input: {},
    error: 'Processor json_path: missing field: s',
  },
]);

checkCompileErrors([
  { name: 'json_path required', options: { field: 's' }, error: /Processor json_path: missing option: json_path/ },
  { name: 'must start with $', options: { field: 's', json_path: 'a.b' }, error: /must start with \$/ },
  {
    name: 'scripts unsupported',
    options: { field: 's', json_path: '$.book[(@.length-1)]' },
    error: /script expressions are not supported/,
  },
  { name: 'unclosed filter', options: { field: 's', json_path: '$.book[?(@.tags]' }, error: /expected "\)"/ },
  { name: 'unclosed bracket', options: { field: 's', json_path: '$.a[0' }, error: /expected "\]"/ },
  {
    name: 'result_index integer',
    options: { field: 's', json_path: '$', result_index: 'x' },
    error: /result_index must be an integer/,
  },
  {
    name: 'result_index not negative',
    options: { field: 's', json_path: '$', result_index: -1 },
    error: /must not be negative/,
  },
]);
