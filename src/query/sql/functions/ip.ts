/**
 * GreptimeDB's IP functions: ipv4_num_to_string, ipv4_string_to_num, ipv4_to_cidr,
 * ipv4_in_range and their ipv6_* counterparts. An unreadable address is an invalid-argument
 * error (GreptimeDB's InvalidFuncArgs), never a NULL; NULL in gives NULL out.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { Value } from '../types/values.js';
import { formatIpv4, formatIpv6, maskBytes, parseIpv4, parseIpv6 } from './ip-address.js';
import { typed } from './typed.js';
import type { ScalarFunction } from './types.js';

function invalidArgs(message: string): DbError {
  return new DbError(ErrorCode.InvalidArguments, `Invalid function args: ${message}`);
}

function executionError(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Execution error: ${message}`);
}

function bytesOfIpv4(n: number): Uint8Array {
  return Uint8Array.from([24, 16, 8, 0], (shift) => Math.floor(n / 2 ** shift) % 256);
}

function numberOfBytes(bytes: Uint8Array): number {
  return bytes.reduce((n, b) => n * 256 + b, 0);
}

/** Fills a partial IPv4 address (`192.168` is `192.168.0.0`) before parsing, as GreptimeDB does. */
function completedIpv4(text: string): number {
  const dots = text.split('.').length - 1;
  const full = parseIpv4(text) ?? parseIpv4(text + '.0'.repeat(Math.max(0, 3 - dots)));
  if (full === null) throw invalidArgs(`Invalid IPv4 address: ${text}`);
  return full;
}

/** The prefix ipv4_to_cidr picks without a mask: from the parts written, or the trailing zero bytes. */
function autoIpv4Prefix(text: string, n: number): number {
  const dots = text.split('.').length - 1;
  if (dots < 3) return 8 * (dots + 1);
  let zeroBytes = 0;
  for (let shift = 0; shift < 32 && Math.floor(n / 2 ** shift) % 256 === 0; shift += 8) zeroBytes++;
  return 32 - 8 * zeroBytes;
}

function ipv4ToCidr(ip: Value, mask?: Value): Value {
  const text = (ip as string).trim();
  if (text === '') throw invalidArgs('Empty IPv4 address');
  const n = completedIpv4(text);
  const prefix = mask === undefined ? autoIpv4Prefix(text, n) : Number(mask);
  return `${formatIpv4(numberOfBytes(maskBytes(bytesOfIpv4(n), prefix)))}/${prefix}`;
}

/** Completes a partial IPv6 address (`2001:db8` is `2001:db8::`) before parsing. */
function completedIpv6(text: string): Uint8Array {
  const full = parseIpv6(text) ?? parseIpv6(text.endsWith(':') ? `${text}:` : text.includes('::') ? text : `${text}::`);
  if (full === null) throw invalidArgs(`Invalid IPv6 address: ${text}`);
  return full;
}

/** GreptimeDB's guess of an IPv6 prefix: from the last non-zero group (with its special cases). */
function autoIpv6Prefix(bytes: Uint8Array): number {
  const text = formatIpv6(bytes);
  if (text.startsWith('2001:db8:')) return 32;
  if (text === '::1') return 128;
  if (text.startsWith('fe80::')) return 16;
  for (let i = 7; i >= 0; i--) {
    const hi = bytes[2 * i] as number;
    const lo = bytes[2 * i + 1] as number;
    if (hi === 0 && lo === 0) continue;
    const prefix = lo === 0 ? i * 16 + 8 : (i + 1) * 16;
    return prefix < 16 ? 64 : prefix;
  }
  return 64;
}

function ipv6ToCidr(ip: Value, mask?: Value): Value {
  const text = (ip as string).trim();
  if (text === '') throw invalidArgs('Empty IPv6 address');
  const bytes = completedIpv6(text);
  const prefix = mask === undefined ? autoIpv6Prefix(bytes) : Number(mask);
  return `${formatIpv6(maskBytes(bytes, prefix))}/${prefix}`;
}

/** Splits `addr/prefix`, checking the prefix against the family's width. */
function parseCidr(cidr: string, bits: 32 | 128): { address: string; prefix: number } {
  const parts = cidr.split('/');
  if (parts.length !== 2) throw invalidArgs(`Invalid CIDR notation: ${cidr}`);
  const [address, prefixText] = parts as [string, string];
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > 255) {
    throw invalidArgs(`Invalid prefix length: ${prefixText}`);
  }
  const prefix = Number(prefixText);
  if (prefix > bits) throw invalidArgs(`IPv${bits === 32 ? 4 : 6} prefix length must be <= ${bits}, got ${prefix}`);
  return { address, prefix };
}

function sameNetwork(a: Uint8Array, b: Uint8Array, prefix: number): boolean {
  const x = maskBytes(a, prefix);
  const y = maskBytes(b, prefix);
  return x.every((v, i) => v === y[i]);
}

function inRange(version: 4 | 6) {
  return (ip: Value, range: Value): Value => {
    const ipText = ip as string;
    const rangeText = range as string;
    if (ipText === '' || rangeText === '') throw executionError('IP address or CIDR range cannot be empty');
    const parse = (text: string): Uint8Array | null => {
      if (version === 6) return parseIpv6(text);
      const n = parseIpv4(text);
      return n === null ? null : bytesOfIpv4(n);
    };
    const address = parse(ipText);
    if (address === null) throw invalidArgs(`Invalid IPv${version} address: ${ipText}`);
    const cidr = parseCidr(rangeText, version === 4 ? 32 : 128);
    const base = parse(cidr.address);
    if (base === null) throw invalidArgs(`Invalid IPv${version} address in CIDR: ${cidr.address}`);
    return sameNetwork(address, base, cidr.prefix);
  };
}

/** `ipv6_num_to_string(hex)`: 32 hex characters to the address text. */
function ipv6NumToString(hex: Value): Value {
  const text = (hex as string).toLowerCase();
  if (text.length !== 32) throw executionError(`expecting 32 hex characters, got ${text.length}`);
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    const pair = text.slice(2 * i, 2 * i + 2);
    if (!/^[0-9a-f]{2}$/.test(pair)) throw invalidArgs(`Invalid hex characters in '${pair}'`);
    bytes[i] = Number.parseInt(pair, 16);
  }
  return formatIpv6(bytes);
}

/** `ipv6_string_to_num(text)`: the 16 bytes (Binary); an IPv4 address is mapped into IPv6. */
function ipv6StringToNum(ip: Value): Value {
  const text = ip as string;
  const v6 = parseIpv6(text);
  const v4 = v6 === null ? parseIpv4(text) : null;
  if (v6 === null && v4 === null) throw executionError(`Invalid IPv6 address format: ${text}`);
  const bytes = v6 ?? Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...bytesOfIpv4(v4 as number)]);
  return Buffer.from(bytes).toString('latin1');
}

/** IP functions by SQL name. */
export const IP_FUNCTIONS: Record<string, ScalarFunction> = {
  ipv4_num_to_string: typed('ipv4_num_to_string', ['integer'], 0, 'String', (n) => {
    const v = Number(n);
    if (v < 0 || v > 0xffffffff) throw invalidArgs(`Invalid IPv4 number: ${v}`);
    return formatIpv4(v);
  }),
  ipv4_string_to_num: typed('ipv4_string_to_num', ['string'], 0, 'UInt32', (s) => {
    const n = parseIpv4(s as string);
    if (n === null) throw invalidArgs(`Invalid IPv4 address format: ${s as string}`);
    return n;
  }),
  ipv4_to_cidr: typed('ipv4_to_cidr', ['string', 'integer'], 1, 'String', ipv4ToCidr),
  ipv4_in_range: typed('ipv4_in_range', ['string', 'string'], 0, 'Boolean', inRange(4)),
  ipv6_num_to_string: typed('ipv6_num_to_string', ['string'], 0, 'String', ipv6NumToString),
  ipv6_string_to_num: typed('ipv6_string_to_num', ['string'], 0, 'Binary', ipv6StringToNum),
  ipv6_to_cidr: typed('ipv6_to_cidr', ['string', 'integer'], 1, 'String', ipv6ToCidr),
  ipv6_in_range: typed('ipv6_in_range', ['string', 'string'], 0, 'Boolean', inRange(6)),
};
