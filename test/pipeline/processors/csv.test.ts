import { csv } from '../../../src/pipeline/processors/csv.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('csv', csv, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('csv', csv, cases);

check([
  {
    name: 'equal length',
    options: { field: 'data', target_fields: 'a,b' },
    input: { data: '1,2' },
    expected: { data: '1,2', a: '1', b: '2' },
  },
  {
    name: 'more targets than columns: null',
    options: { field: 'data', target_fields: 'a, b, c' },
    input: { data: '1,2' },
    expected: { data: '1,2', a: '1', b: '2', c: null },
  },
  {
    name: 'more targets than columns: empty_value',
    options: { field: 'data', target_fields: 'a,b,c', empty_value: 'default' },
    input: { data: '1,2' },
    expected: { data: '1,2', a: '1', b: '2', c: 'default' },
  },
  {
    name: 'extra columns dropped',
    options: { field: 'data', target_fields: 'a,b', empty_value: 'default' },
    input: { data: '1,2,3' },
    expected: { data: '1,2,3', a: '1', b: '2' },
  },
  {
    name: 'quoted fields with separators, quotes and newlines',
    options: { field: 'data', target_fields: 'a,b,c' },
    input: { data: '"x,y","say ""hi""","two\nlines"' },
    expected: { data: '"x,y","say ""hi""","two\nlines"', a: 'x,y', b: 'say "hi"', c: 'two\nlines' },
  },
  {
    name: 'only the first record',
    options: { field: 'data', target_fields: 'a,b' },
    input: { data: '1,2\n3,4' },
    expected: { data: '1,2\n3,4', a: '1', b: '2' },
  },
  {
    name: 'custom separator and quote',
    options: { field: 'data', target_fields: 'a,b', separator: ';', quote: "'" },
    input: { data: "'a;b';c" },
    expected: { data: "'a;b';c", a: 'a;b', b: 'c' },
  },
  {
    name: 'trim',
    options: { field: 'data', target_fields: 'a,b', trim: true },
    input: { data: ' 1 ,  2' },
    expected: { data: ' 1 ,  2', a: '1', b: '2' },
  },
  {
    name: 'no trim by default; empty column stays empty',
    options: { field: 'data', target_fields: 'a,b,c' },
    input: { data: ' 1 ,,x' },
    expected: { data: ' 1 ,,x', a: ' 1 ', b: '', c: 'x' },
  },
  {
    name: 'a quote inside an unquoted field is text',
    options: { field: 'data', target_fields: 'a' },
    input: { data: 'ab"c' },
    expected: { data: 'ab"c', a: 'ab"c' },
  },
  {
    name: 'ignore_missing',
    options: { field: 'data', target_fields: 'a', ignore_missing: true },
    input: {},
    expected: {},
  },
  {
    name: 'empty input',
    options: { field: 'data', target_fields: 'a' },
    input: { data: '' },
    error: /Processor csv: no record found/,
  },
  {
    name: 'missing',
    options: { field: 'data', target_fields: 'a' },
    input: {},
    error: 'Processor csv: missing field: data',
  },
  {
    name: 'type error',
    options: { field: 'data', target_fields: 'a' },
    input: { data: 5 },
    error: 'Processor csv: expect string value, but got integer',
  },
]);

checkCompileErrors([
  { name: 'target_fields required', options: { field: 'data' }, error: /Processor csv: missing option: target_fields/ },
  {
    name: 'separator is one character',
    options: { field: 'data', target_fields: 'a', separator: '::' },
    error: /separator must be a single character/,
  },
  {
    name: 'quote is one character',
    options: { field: 'data', target_fields: 'a', quote: '' },
    error: /quote must be a single character/,
  },
  {
    name: 'trim is a boolean',
    options: { field: 'data', target_fields: 'a', trim: 'yes' },
    error: /option trim must be a boolean/,
  },
]);
