import { DROP } from '../../../src/pipeline/processor.js';
import { filter } from '../../../src/pipeline/processors/filter.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('filter', filter, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('filter', filter, cases);

check([
  {
    name: 'in: match drops',
    options: { field: 'name', targets: ['John'], case_insensitive: false },
    input: { name: 'John' },
    expected: DROP,
  },
  {
    name: 'in: no match keeps',
    options: { field: 'name', targets: ['John'], case_insensitive: false },
    input: { name: 'Wick' },
    expected: { name: 'Wick' },
  },
  {
    name: 'not_in: match keeps',
    options: { field: 'name', targets: ['John'], match_op: 'not_in', case_insensitive: false },
    input: { name: 'John' },
    expected: { name: 'John' },
  },
  {
    name: 'not_in: no match drops',
    options: { field: 'name', targets: ['John'], match_op: 'not_in', case_insensitive: false },
    input: { name: 'Wick' },
    expected: DROP,
  },
  {
    name: 'case-insensitive by default',
    options: { field: 'name', targets: ['john'] },
    input: { name: 'JoHN' },
    expected: DROP,
  },
  {
    name: 'case-sensitive when asked',
    options: { field: 'name', targets: ['john'], case_insensitive: false },
    input: { name: 'JoHN' },
    expected: { name: 'JoHN' },
  },
  {
    name: 'case-insensitive targets fold too',
    options: { field: 'level', targets: ['DEBUG', 'Trace'], mode: 'simple' },
    input: { level: 'trace' },
    expected: DROP,
  },
  {
    name: 'any listed field may match',
    options: { fields: ['a', 'b'], targets: ['x'] },
    input: { a: 'y', b: 'x' },
    expected: DROP,
  },
  {
    name: 'missing and null fields are ignored',
    options: { fields: ['a', 'b'], targets: ['x'] },
    input: { b: null },
    expected: { b: null },
  },
  {
    name: 'a non-string value fails',
    options: { field: 'a', targets: ['1'] },
    input: { a: 1 },
    error: 'Processor filter: expect string value, but got integer',
  },
]);

checkCompileErrors([
  { name: 'targets required', options: { field: 'a' }, error: /Processor filter: missing option: targets/ },
  { name: 'targets non-empty', options: { field: 'a', targets: [''] }, error: /missing option: targets/ },
  { name: 'unknown match_op', options: { field: 'a', targets: ['x'], match_op: 'eq' }, error: /invalid match_op: eq/ },
  { name: 'unknown mode', options: { field: 'a', targets: ['x'], mode: 'regex' }, error: /invalid mode: regex/ },
]);
