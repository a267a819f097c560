import { letter } from '../../../src/pipeline/processors/letter.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('letter', letter, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('letter', letter, cases);

check([
  { name: 'upper', options: { fields: ['s'], method: 'upper' }, input: { s: 'aaa' }, expected: { s: 'AAA' } },
  { name: 'lower', options: { fields: ['s'], method: 'lower' }, input: { s: 'AAA' }, expected: { s: 'aaa' } },
  { name: 'lower is the default', options: { field: 's' }, input: { s: 'MiXeD 1' }, expected: { s: 'mixed 1' } },
  {
    name: 'capital on several fields',
    options: { fields: ['upper', 'lower'], method: 'capital' },
    input: { upper: 'AAA', lower: 'aaa' },
    expected: { upper: 'AAA', lower: 'Aaa' },
  },
  {
    name: 'capital of an empty string',
    options: { field: 's', method: 'capital' },
    input: { s: '' },
    expected: { s: '' },
  },
  {
    name: 'only ASCII letters change',
    options: { field: 's', method: 'upper' },
    input: { s: 'straße é' },
    expected: { s: 'STRAßE é' },
  },
  { name: 'rename', options: { field: 's, t', method: 'upper' }, input: { s: 'ab' }, expected: { s: 'ab', t: 'AB' } },
  {
    name: 'ignore_missing',
    options: { fields: ['upper', 'lower'], method: 'capital', ignore_missing: true },
    input: {},
    expected: {},
  },
  { name: 'missing field', options: { field: 's' }, input: {}, error: 'Processor letter: missing field: s' },
  {
    name: 'a number is not a string',
    options: { field: 's' },
    input: { s: 12 },
    error: 'Processor letter: expect string value, but got integer',
  },
]);

checkCompileErrors([
  {
    name: 'unknown method',
    options: { field: 's', method: 'title' },
    error: /Processor letter: invalid method: title/,
  },
  { name: 'no field', options: { method: 'upper' }, error: /missing option: field or fields/ },
]);
