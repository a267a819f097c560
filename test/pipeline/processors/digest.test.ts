import { digest } from '../../../src/pipeline/processors/digest.js';
import {
  type CompileCase,
  checkCompileErrors as checkErrors,
  checkProcessor,
  type ProcessorCase,
} from '../../helpers/processor-cases.js';

const check = (cases: ProcessorCase[]): void => checkProcessor('digest', digest, cases);
const checkCompileErrors = (cases: CompileCase[]): void => checkErrors('digest', digest, cases);

function digestOf(presets: string[], regex: string[] = []): (input: string, output: string) => ProcessorCase {
  const options: Record<string, unknown> = { field: 'm' };
  if (presets.length > 0) options.presets = presets;
  if (regex.length > 0) options.regex = regex;
  return (input, output) => ({
    name: `${[...presets, ...regex].join('+')}: ${JSON.stringify(input)}`,
    options,
    input: { m: input },
    expected: { m: input, m_digest: output },
  });
}

const ip = digestOf(['ip']);
const uuid = digestOf(['uuid']);
const bracketed = digestOf(['bracketed']);
const quoted = digestOf(['quoted']);
const numbers = digestOf(['numbers']);
const all = digestOf(['numbers', 'quoted', 'bracketed', 'uuid', 'ip']);

check([
  ip('192.168.1.1', ''),
  ip('192.168.1.1:8080', ''),
  ip('[2001:0db8:85a3:0000:0000:8a2e:0370:7334]', ''),
  ip('[2001:0db8:85a3:0000:0000:8a2e:0370:7334]:8080', ''),
  ip('not an ip', 'not an ip'),
  uuid('123e4567-e89b-12d3-a456-426614174000', ''),
  uuid('A987FBC9-4BED-3078-CF07-9141BA07C9F3', ''),
  uuid('not a uuid', 'not a uuid'),
  bracketed('[content]', ''),
  bracketed('(content)', ''),
  bracketed('「content」', ''),
  bracketed('【content】', ''),
  bracketed('[content', '[content'),
  bracketed('content]', 'content]'),
  bracketed('[content}', ''),
  quoted('"quoted content"', ''),
  quoted('say “hi” now', 'say  now'),
  quoted('no quotes', 'no quotes'),
  numbers('took 123 ms, 45 rows', 'took  ms,  rows'),
  // Patterns apply in order: numbers first leaves only the dots of the address.
  all('user "bob" from 10.0.0.1 took 12ms [req 7]', 'user  from ... took ms '),
  digestOf(['ip', 'numbers'])('from 10.0.0.1 took 12ms', 'from  took ms'),
  digestOf([], ['\\d+'])('12345', ''),
  digestOf([], ['id=\\w+', '\\s+$'])('done id=abc   ', 'done'),
  {
    name: 'the target is always <input>_digest',
    options: { field: 'm, other', presets: ['numbers'] },
    input: { m: 'a1' },
    expected: { m: 'a1', m_digest: 'a' },
  },
  {
    name: 'fields list',
    options: { fields: ['a', 'b'], presets: ['numbers'] },
    input: { a: 'x1', b: 'y22' },
    expected: { a: 'x1', b: 'y22', a_digest: 'x', b_digest: 'y' },
  },
  {
    name: 'ignore_missing',
    options: { field: 'm', presets: ['numbers'], ignore_missing: true },
    input: {},
    expected: {},
  },
  {
    name: 'missing',
    options: { field: 'm', presets: ['numbers'] },
    input: {},
    error: 'Processor digest: missing field: m',
  },
  {
    name: 'type error',
    options: { field: 'm', presets: ['numbers'] },
    input: { m: 1 },
    error: 'Processor digest: expect string value, but got integer',
  },
]);

checkCompileErrors([
  {
    name: 'unknown preset',
    options: { field: 'm', presets: ['emails'] },
    error: /Processor digest: invalid preset: emails/,
  },
  { name: 'invalid regex', options: { field: 'm', regex: ['(a'] }, error: /Processor digest: invalid regex "\(a"/ },
  { name: 'backtracking constructs are refused', options: { field: 'm', regex: ['(a)\\1'] }, error: /invalid regex/ },
  { name: 'no pattern', options: { field: 'm' }, error: /missing option: presets or regex/ },
]);
