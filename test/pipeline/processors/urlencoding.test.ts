import { urlencoding } from '../../../src/pipeline/processors/urlencoding.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('urlencoding', urlencoding, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('urlencoding', urlencoding, cases);

check([
  {
    name: 'encode',
    options: { field: 'e', method: 'encode' },
    input: { e: '2024-06-27T06:13:36.991Z' },
    expected: { e: '2024-06-27T06%3A13%3A36.991Z' },
  },
  {
    name: 'decode (the default)',
    options: { field: 'd' },
    input: { d: '2024-06-27T06%3A13%3A36.991Z' },
    expected: { d: '2024-06-27T06:13:36.991Z' },
  },
  {
    name: 'encode keeps only unreserved characters',
    options: { field: 'e', method: 'encode' },
    input: { e: "a b+c/~_.-!*'()é" },
    expected: { e: 'a%20b%2Bc%2F~_.-%21%2A%27%28%29%C3%A9' },
  },
  { name: 'decode leaves + alone', options: { field: 'd' }, input: { d: 'a+b%20c' }, expected: { d: 'a+b c' } },
  { name: 'decode UTF-8', options: { field: 'd' }, input: { d: '%E4%BD%A0%e5%a5%bd' }, expected: { d: '你好' } },
  { name: 'malformed escapes stay', options: { field: 'd' }, input: { d: '100%zz 5%' }, expected: { d: '100%zz 5%' } },
  { name: 'rename', options: { field: 'd, out' }, input: { d: '%41' }, expected: { d: '%41', out: 'A' } },
  { name: 'ignore_missing', options: { field: 'e', method: 'encode', ignore_missing: true }, input: {}, expected: {} },
  {
    name: 'invalid UTF-8 after decoding',
    options: { field: 'd' },
    input: { d: '%FF' },
    error: 'Processor urlencoding: invalid UTF-8 after decoding: %FF',
  },
  {
    name: 'input must be a string',
    options: { field: 'd' },
    input: { d: 1 },
    error: 'Processor urlencoding: expect string value, but got integer',
  },
  { name: 'missing field', options: { field: 'd' }, input: {}, error: 'Processor urlencoding: missing field: d' },
]);

checkCompileErrors([
  { name: 'unknown method', options: { field: 'd', method: 'rot13' }, error: /invalid method: rot13/ },
]);
