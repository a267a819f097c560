/**
 * `urlencoding`: percent-decoding (`method: decode`, the default) or percent-encoding (`encode`)
 * of a string. Decoding leaves `+` alone and keeps malformed escapes (`%zz`, a trailing `%`) as
 * text; bytes that do not form UTF-8 fail the record. Encoding escapes every byte of the UTF-8
 * form except `A-Z a-z 0-9 - _ . ~`, upper-case hex.
 */
import { inputOf, type ProcessorFactory, RecordError } from '../processor.js';
import { typeNameOf } from '../value.js';

const UNRESERVED = /^[A-Za-z0-9\-_.~]$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Percent-decodes `s`; undefined when the decoded bytes are not valid UTF-8. */
export function percentDecode(s: string): string | undefined {
  if (!s.includes('%')) return s;
  const bytes: number[] = [];
  const src = Buffer.from(s, 'utf8');
  for (let i = 0; i < src.length; i++) {
    const b = src[i] as number;
    if (b === 0x25 && isHex(src[i + 1]) && isHex(src[i + 2])) {
      bytes.push(Number.parseInt(String.fromCharCode(src[i + 1] as number, src[i + 2] as number), 16));
      i += 2;
    } else {
      bytes.push(b);
    }
  }
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}

function isHex(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));
}

export function percentEncode(s: string): string {
  let out = '';
  for (const ch of s) {
    if (UNRESERVED.test(ch)) {
      out += ch;
      continue;
    }
    for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export const urlencoding: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const method = options.string('method') ?? 'decode';
  if (method !== 'decode' && method !== 'encode') {
    options.fail(`invalid method: ${method}, expected one of decode, encode`, 'method');
  }
  return {
    name: 'urlencoding',
    exec(record) {
      for (const field of fields) {
        const v = inputOf('urlencoding', options, record, field);
        if (v === undefined) continue;
        if (typeof v !== 'string') {
          throw new RecordError(`Processor urlencoding: expect string value, but got ${typeNameOf(v)}`);
        }
        if (method === 'encode') {
          record[field.output] = percentEncode(v);
          continue;
        }
        const decoded = percentDecode(v);
        if (decoded === undefined) {
          throw new RecordError(`Processor urlencoding: invalid UTF-8 after decoding: ${v}`);
        }
        record[field.output] = decoded;
      }
      return undefined;
    },
  };
};
