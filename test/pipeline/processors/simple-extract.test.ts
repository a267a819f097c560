import { simpleExtract } from '../../../src/pipeline/processors/simple-extract.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('simple_extract', simpleExtract, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('simple_extract', simpleExtract, cases);

const commit = { commitTime: '1573840000.000', commitAuthor: 'test' };

check([
  {
    name: 'one level',
    options: { field: 'commit, commit_author', key: 'commitAuthor' },
    input: { commit },
    expected: { commit, commit_author: 'test' },
  },
  {
    name: 'nested path in place',
    options: { field: 'a', key: 'b.c.d' },
    input: { a: { b: { c: { d: 7 } } } },
    expected: { a: 7 },
  },
  {
    name: 'an object result',
    options: { field: 'a, x', key: 'b' },
    input: { a: { b: { c: 1 } } },
    expected: { a: { b: { c: 1 } }, x: { c: 1 } },
  },
  {
    name: 'missing step gives null',
    options: { field: 'a, x', key: 'b.zz' },
    input: { a: { b: {} } },
    expected: { a: { b: {} }, x: null },
  },
  {
    name: 'non-object on the way gives null',
    options: { field: 'a, x', key: 'b.c' },
    input: { a: { b: 'str' } },
    expected: { a: { b: 'str' }, x: null },
  },
  {
    name: 'input not an object gives null',
    options: { field: 'a, x', key: 'b' },
    input: { a: 3 },
    expected: { a: 3, x: null },
  },
  { name: 'ignore_missing', options: { field: 'a', key: 'b', ignore_missing: true }, input: {}, expected: {} },
  {
    name: 'missing input',
    options: { field: 'a', key: 'b' },
    input: {},
    error: 'Processor simple_extract: missing field: a',
  },
]);

checkCompileErrors([
  { name: 'key is required', options: { field: 'a' }, error: /Processor simple_extract: missing option: key/ },
  { name: 'empty step', options: { field: 'a', key: 'a..b' }, error: /invalid key: a\.\.b/ },
]);
