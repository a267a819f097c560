import { cmcd } from '../../../src/pipeline/processors/cmcd.js';
import type { PipelineRecord } from '../../../src/pipeline/value.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('cmcd', cmcd, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('cmcd', cmcd, cases);

const SID = '"6e2fb550-c457-11e9-bb97-0800200c9a66"';

function cmcdCase(text: string, out: PipelineRecord): ProcessorCase {
  return { name: text, options: { field: 'c, prefix' }, input: { c: text }, expected: { c: text, ...out } };
}

check([
  cmcdCase(`sid=${SID}`, { prefix_sid: SID }),
  cmcdCase(`br=3200,bs,d=4004,mtp=25400,ot=v,rtp=15000,sid=${SID},tb=6000`, {
    prefix_br: 3200,
    prefix_bs: true,
    prefix_d: 4004,
    prefix_mtp: 25400,
    prefix_ot: 'v',
    prefix_rtp: 15000,
    prefix_sid: SID,
    prefix_tb: 6000,
  }),
  cmcdCase(`b,rtp=15000,sid=${SID}`, { prefix_rtp: 15000, prefix_sid: SID }),
  cmcdCase('bs,su', { prefix_bs: true, prefix_su: true }),
  cmcdCase('d=4004,com.example-myNumericKey=500,com.examplemyStringKey="myStringValue"', { prefix_d: 4004 }),
  cmcdCase(`nor="..%2F300kbps%2Fsegment35.m4v",sid=${SID}`, {
    prefix_nor: '"../300kbps/segment35.m4v"',
    prefix_sid: SID,
  }),
  cmcdCase('nrr="12323-48763",pr=1.08,bl=21300,dl=18500,sf=d,st=v,v=1,cid="faec5fc2"', {
    prefix_nrr: '"12323-48763"',
    prefix_pr: 1.08,
    prefix_bl: 21300,
    prefix_dl: 18500,
    prefix_sf: 'd',
    prefix_st: 'v',
    prefix_v: '1',
    prefix_cid: '"faec5fc2"',
  }),
  {
    name: 'prefix is the input name without rename',
    options: { field: 'cmcd' },
    input: { cmcd: 'br=1' },
    expected: { cmcd: 'br=1', cmcd_br: 1 },
  },
  { name: 'ignore_missing', options: { field: 'c', ignore_missing: true }, input: {}, expected: {} },
  { name: 'missing', options: { field: 'c' }, input: {}, error: 'Processor cmcd: missing field: c' },
  {
    name: 'integer key without value',
    options: { field: 'c' },
    input: { c: 'br' },
    error: 'Processor cmcd: missing value for key br in br',
  },
  {
    name: 'bad integer',
    options: { field: 'c' },
    input: { c: 'br=fast' },
    error: 'Processor cmcd: failed to parse br=fast as an integer',
  },
  {
    name: 'bad float',
    options: { field: 'c' },
    input: { c: 'pr=x' },
    error: 'Processor cmcd: failed to parse pr=x as a float',
  },
  {
    name: 'type error',
    options: { field: 'c' },
    input: { c: 1 },
    error: 'Processor cmcd: expect string value, but got integer',
  },
]);

checkCompileErrors([{ name: 'no field', options: {}, error: /missing option: field or fields/ }]);
