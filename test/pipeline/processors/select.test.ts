import { select } from '../../../src/pipeline/processors/select.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('select', select, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('select', select, cases);

check([
  {
    name: 'include keeps only listed keys',
    options: { field: 'hello' },
    input: { hello: 'world', hello2: 'world2' },
    expected: { hello: 'world' },
  },
  {
    name: 'include with rename',
    options: { field: 'hello, hello3' },
    input: { hello: 'world', hello2: 'world2' },
    expected: { hello3: 'world' },
  },
  {
    name: 'include several, missing ones ignored',
    options: { fields: ['a', 'b', 'zz', { key: 'c', rename_to: 'd' }], type: 'include' },
    input: { a: 1, b: null, c: [1], e: 'x' },
    expected: { a: 1, b: null, d: [1] },
  },
  {
    name: 'include rename of a missing key keeps an existing target',
    options: { field: 'x, y' },
    input: { y: 1, z: 2 },
    expected: { y: 1 },
  },
  {
    name: 'exclude deletes listed keys',
    options: { fields: ['hello', 'nope'], type: 'exclude' },
    input: { hello: 'world', hello2: 'world2' },
    expected: { hello2: 'world2' },
  },
  { name: 'include of nothing present empties the record', options: { field: 'q' }, input: { a: 1 }, expected: {} },
]);

checkCompileErrors([
  { name: 'unknown type', options: { field: 'a', type: 'keep' }, error: /Processor select: invalid type: keep/ },
  { name: 'fields required', options: { type: 'exclude' }, error: /missing option: field or fields/ },
]);
