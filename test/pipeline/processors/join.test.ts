import { join } from '../../../src/pipeline/processors/join.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('join', join, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('join', join, cases);

check([
  { name: 'strings', options: { field: 'j', separator: '-' }, input: { j: ['a', 'b', 'c'] }, expected: { j: 'a-b-c' } },
  { name: 'integers', options: { field: 'j', separator: '-' }, input: { j: [1, 2, 3] }, expected: { j: '1-2-3' } },
  {
    name: 'booleans',
    options: { field: 'j', separator: '-' },
    input: { j: [true, false, true] },
    expected: { j: 'true-false-true' },
  },
  {
    name: 'floats',
    options: { field: 'j', separator: '-' },
    input: { j: [1.1, 1.2, 1.3] },
    expected: { j: '1.1-1.2-1.3' },
  },
  {
    name: 'mixed types',
    options: { field: 'j', separator: '-' },
    input: { j: [1, true, 'a', 1.1] },
    expected: { j: '1-true-a-1.1' },
  },
  { name: 'empty array', options: { field: 'j', separator: ',' }, input: { j: [] }, expected: { j: '' } },
  {
    name: 'multi-character separator',
    options: { field: 'j', separator: ', ' },
    input: { j: ['x', 'y'] },
    expected: { j: 'x, y' },
  },
  {
    name: 'rename',
    options: { field: 'j, out', separator: '|' },
    input: { j: ['a', 'b'] },
    expected: { j: ['a', 'b'], out: 'a|b' },
  },
  {
    name: 'fields list with a map entry',
    options: { fields: ['a', { key: 'b', rename_to: 'c' }], separator: '+' },
    input: { a: ['1'], b: ['2', '3'] },
    expected: { a: '1', b: ['2', '3'], c: '2+3' },
  },
  {
    name: 'ignore_missing skips missing and null',
    options: { fields: ['a', 'b'], separator: '-', ignore_missing: true },
    input: { b: null },
    expected: { b: null },
  },
  {
    name: 'missing field',
    options: { field: 'j', separator: '-' },
    input: {},
    error: 'Processor join: missing field: j',
  },
  {
    name: 'null is missing',
    options: { field: 'j', separator: '-' },
    input: { j: null },
    error: 'Processor join: missing field: j',
  },
  {
    name: 'a string is not an array',
    options: { field: 'j', separator: '-' },
    input: { j: 'abc' },
    error: 'Processor join: expect array value, but got string',
  },
]);

checkCompileErrors([
  { name: 'separator is required', options: { field: 'j' }, error: /Processor join: missing option: separator/ },
  {
    name: 'a field is required',
    options: { separator: ',' },
    error: /Processor join: missing option: field or fields/,
  },
]);
