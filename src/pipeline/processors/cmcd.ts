/**
 * `cmcd`: parses Common Media Client Data (CTA-5004) `key=value,key2,...` into keys
 * `<prefix>_<key>`, prefix being the target (or input) field name. Known keys only: `bs su` →
 * true; `br bl d dl mtp rtp tb` → integer; `cid nrr ot sf sid st v` → string as sent (quotes
 * kept); `nor` → percent-decoded string; `pr` → float. Other keys (custom ones) are ignored.
 */
import { inputOf, type ProcessorFactory, RecordError } from '../processor.js';
import { type PipelineRecord, type PipelineValue, typeNameOf } from '../value.js';
import { percentDecode } from './urlencoding.js';

type Parse = (key: string, value: string | undefined, text: string) => PipelineValue;

const INTEGER = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$/i;

const flag: Parse = () => true;
const integer: Parse = (key, value, text) => {
  const v = required(key, value, text);
  if (!INTEGER.test(v)) throw new RecordError(`Processor cmcd: failed to parse ${key}=${v} as an integer`);
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : BigInt(v);
};
const string: Parse = (key, value, text) => required(key, value, text);
const nor: Parse = (key, value, text) => {
  const v = required(key, value, text);
  return percentDecode(v) ?? v;
};
const float: Parse = (key, value, text) => {
  const v = required(key, value, text);
  if (!FLOAT.test(v)) throw new RecordError(`Processor cmcd: failed to parse ${key}=${v} as a float`);
  const lower = v.toLowerCase().replace(/^\+/, '');
  if (lower.endsWith('nan')) return Number.NaN;
  if (lower.endsWith('inf') || lower.endsWith('infinity')) return lower.startsWith('-') ? -Infinity : Infinity;
  return Number(v);
};

function required(key: string, value: string | undefined, text: string): string {
  if (value === undefined) throw new RecordError(`Processor cmcd: missing value for key ${key} in ${text}`);
  return value;
}

const KEYS: Record<string, Parse> = {
  bs: flag,
  su: flag,
  br: integer,
  bl: integer,
  d: integer,
  dl: integer,
  mtp: integer,
  rtp: integer,
  tb: integer,
  cid: string,
  nrr: string,
  ot: string,
  sf: string,
  sid: string,
  st: string,
  v: string,
  nor,
  pr: float,
};

/** The known keys of one CMCD payload, named `<prefix>_<key>`. */
export function parseCmcd(prefix: string, text: string): PipelineRecord {
  const out: PipelineRecord = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const parse = Object.hasOwn(KEYS, key) ? KEYS[key] : undefined;
    if (parse === undefined) continue;
    out[`${prefix}_${key}`] = parse(key, eq < 0 ? undefined : part.slice(eq + 1), text);
  }
  return out;
}

export const cmcd: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  return {
    name: 'cmcd',
    exec(record) {
      for (const field of fields) {
        const v = inputOf('cmcd', options, record, field);
        if (v === undefined) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor cmcd: expect string value, but got ${typeNameOf(v)}`);
        }
        Object.assign(record, parseCmcd(field.output, v));
      }
      return undefined;
    },
  };
};
