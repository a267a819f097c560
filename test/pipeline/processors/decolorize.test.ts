import { decolorize } from '../../../src/pipeline/processors/decolorize.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('decolorize', decolorize, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('decolorize', decolorize, cases);

check([
  {
    name: 'colours removed',
    options: { field: 'm' },
    input: { m: '\x1b[31mERROR\x1b[0m: \x1b[1;33mdisk\x1b[m full' },
    expected: { m: 'ERROR: disk full' },
  },
  { name: 'no colours', options: { field: 'm' }, input: { m: 'plain' }, expected: { m: 'plain' } },
  {
    name: 'other escapes stay',
    options: { field: 'm' },
    input: { m: '\x1b[2Jclear\x1b[31' },
    expected: { m: '\x1b[2Jclear\x1b[31' },
  },
  {
    name: 'rename',
    options: { field: 'm, clean' },
    input: { m: '\x1b[32mok\x1b[0m' },
    expected: { m: '\x1b[32mok\x1b[0m', clean: 'ok' },
  },
  { name: 'ignore_missing', options: { fields: ['m'], ignore_missing: true }, input: {}, expected: {} },
  { name: 'missing', options: { field: 'm' }, input: {}, error: 'Processor decolorize: missing field: m' },
  {
    name: 'type error',
    options: { field: 'm' },
    input: { m: [1] },
    error: 'Processor decolorize: expect string value, but got array',
  },
]);

checkCompileErrors([{ name: 'no field', options: {}, error: /missing option: field or fields/ }]);
