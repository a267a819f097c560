import { jsonParse } from '../../../src/pipeline/processors/json-parse.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('json_parse', jsonParse, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('json_parse', jsonParse, cases);

const objectText = '{"commitTime": "1573840000.000", "commitAuthor": "test"}';
const parsedObject = { commitTime: '1573840000.000', commitAuthor: 'test' };

check([
  {
    name: 'object in place',
    options: { field: 'commit' },
    input: { commit: objectText },
    expected: { commit: parsedObject },
  },
  {
    name: 'object to a new field',
    options: { field: 'commit, commit_json' },
    input: { commit: objectText },
    expected: { commit: objectText, commit_json: parsedObject },
  },
  { name: 'array', options: { field: 'c' }, input: { c: '["test1", "test2"]' }, expected: { c: ['test1', 'test2'] } },
  {
    name: 'nested values keep their types',
    options: { field: 'c' },
    input: { c: '{"a": {"b": [1, 2.5, true, null]}}' },
    expected: { c: { a: { b: [1, 2.5, true, null] } } },
  },
  { name: 'ignore_missing', options: { field: 'c', ignore_missing: true }, input: {}, expected: {} },
  {
    name: 'a JSON scalar is refused',
    options: { field: 'c' },
    input: { c: '42' },
    error: 'Processor json_parse: expect an object or an array, got integer',
  },
  {
    name: 'invalid JSON',
    options: { field: 'c' },
    input: { c: '{"a":' },
    error: /^Processor json_parse: failed to parse JSON/,
  },
  {
    name: 'input must be a string',
    options: { field: 'c' },
    input: { c: { a: 1 } },
    error: 'Processor json_parse: expect string value, but got object',
  },
  { name: 'missing field', options: { field: 'c' }, input: {}, error: 'Processor json_parse: missing field: c' },
]);

checkCompileErrors([{ name: 'no field', options: {}, error: /missing option: field or fields/ }]);
