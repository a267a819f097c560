/**
 * Mutations of a valid request for the HTTP fuzz run: bytes flipped, cut, repeated or spliced with
 * tokens that parsers treat specially; bodies swapped between routes; media types and content
 * encodings changed (and sometimes honoured, so the decompressed bytes are the mutated ones); query
 * strings with reserved and percent-encoded characters. Deterministic for a given PRNG.
 */
import zlib from 'node:zlib';
import type { Seed } from './http-seeds.js';

type Rand = () => number;

const TOKENS = [
  '"',
  '\\',
  '{',
  '}',
  '[',
  ']',
  '\n',
  ',',
  '=',
  ' ',
  '\u0000',
  '\uFFFD',
  '1e400',
  '-9223372036854775809',
  'NaN',
  'null',
  "'",
  ';',
  '%',
  '{{',
  '$',
  '\xff',
  '9'.repeat(40),
];
const CONTENT_TYPES = [
  'application/json',
  'application/x-protobuf',
  'application/x-www-form-urlencoded',
  'text/plain',
  'application/x-ndjson',
  'application/x-yaml',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
];
const ENCODINGS = ['gzip', 'deflate', 'br', 'snappy', 'zstd', 'identity', 'x-unknown'];
const QUERY_BITS = ['&', '=', '%00', '%ff', '%22', '%zz', 'db=', 'x', '..%2f', 'precision=zz', '%5B', 'limit=-1'];

const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const at = (rand: Rand, n: number): number => Math.floor(rand() * (n + 1));

function flip(rand: Rand, body: Uint8Array): Uint8Array {
  const out = Uint8Array.from(body);
  const flips = 1 + Math.floor(rand() * 8);
  for (let i = 0; i < flips && out.length > 0; i++) out[at(rand, out.length - 1)] = Math.floor(rand() * 256);
  return out;
}

function splice(rand: Rand, body: Uint8Array): Uint8Array {
  const token = Buffer.from(pick(rand, TOKENS), 'latin1');
  const where = at(rand, body.length);
  return Buffer.concat([body.subarray(0, where), token, body.subarray(where)]);
}

function repeatSlice(rand: Rand, body: Uint8Array): Uint8Array {
  const from = at(rand, body.length);
  const to = from + at(rand, body.length - from);
  const times = 1 + Math.floor(rand() * 20);
  return Buffer.concat([body.subarray(0, to), ...Array(times).fill(body.subarray(from, to)), body.subarray(to)]);
}

function encoded(rand: Rand, seed: Seed): Seed {
  const encoding = pick(rand, ENCODINGS);
  const honour = rand() < 0.5;
  let body = seed.body;
  if (honour && encoding === 'gzip') body = zlib.gzipSync(body);
  else if (honour && encoding === 'deflate') body = zlib.deflateSync(body);
  else if (honour && encoding === 'br') body = zlib.brotliCompressSync(body);
  return { ...seed, headers: { ...seed.headers, 'content-encoding': encoding }, body };
}

function mutatedPath(rand: Rand, path: string): string {
  const bits = 1 + Math.floor(rand() * 3);
  let out = path.includes('?') ? path : `${path}?`;
  for (let i = 0; i < bits; i++) {
    const where = out.indexOf('?') + 1 + at(rand, out.length - out.indexOf('?') - 1);
    out = out.slice(0, where) + pick(rand, QUERY_BITS) + out.slice(where);
  }
  return out;
}

/** One to three mutations of `seed`; `others` lends bodies from other routes. */
export function mutate(rand: Rand, seed: Seed, others: readonly Seed[]): Seed {
  let out: Seed = { ...seed, headers: { ...seed.headers } };
  const steps = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < steps; i++) {
    switch (Math.floor(rand() * 9)) {
      case 0:
        out = { ...out, body: flip(rand, out.body) };
        break;
      case 1:
        out = { ...out, body: out.body.subarray(0, at(rand, out.body.length)) };
        break;
      case 2:
        out = { ...out, body: repeatSlice(rand, out.body) };
        break;
      case 3:
        out = { ...out, body: splice(rand, out.body) };
        break;
      case 4: {
        const bytes = new Uint8Array(Math.floor(rand() * 512));
        for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(rand() * 256);
        out = { ...out, body: bytes };
        break;
      }
      case 5:
        out = { ...out, body: pick(rand, others).body };
        break;
      case 6:
        out = { ...out, headers: { ...out.headers, 'content-type': pick(rand, CONTENT_TYPES) } };
        break;
      case 7:
        out = encoded(rand, out);
        break;
      default:
        out = { ...out, path: mutatedPath(rand, out.path) };
    }
  }
  return out;
}
