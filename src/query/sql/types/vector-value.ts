/**
 * Vector values: `dim` Float32 values held as Binary, their little-endian words in a latin1
 * string, as GreptimeDB stores a `VECTOR(dim)` cell. Text is `[1.0, 2.5]` in, `[1,2.5]` out:
 * each float written as Rust's `Display` writes an f32 (shortest digits, never an exponent).
 * The vector functions (functions/vector.ts) and the column type (inserts, casts) share this.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { float32Exponential } from '../../../shared/ryu.js';

// Rust's `str::parse::<f32>` grammar: no hex, no empty text, `inf`/`infinity`/`nan` in any case.
const RUST_FLOAT = /^[+-]?(?:inf|infinity|nan|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)$/i;

/** Why text is not a vector: the reasons GreptimeDB words. */
export type VectorTextError = 'brackets' | 'element' | 'dimension';

/** Parses vector text (brackets required, elements split on commas and trimmed), or says why not. */
export function readVectorText(text: string, dim?: number): Float32Array | VectorTextError {
  const trimmed = text.trim();
  if (trimmed.length < 2 || !trimmed.startsWith('[') || !trimmed.endsWith(']')) return 'brackets';
  const content = trimmed.slice(1, -1).trim();
  const parts = content === '' ? [] : content.split(',');
  const out = new Float32Array(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const part = (parts[i] as string).trim();
    if (!RUST_FLOAT.test(part)) return 'element';
    const word = part.toLowerCase().replace(/^[+-]/, '');
    const negative = part.startsWith('-');
    if (word === 'nan') out[i] = Number.NaN;
    else if (word === 'inf' || word === 'infinity') out[i] = negative ? -Infinity : Infinity;
    else out[i] = Number(part);
  }
  if (dim !== undefined && out.length !== dim) return 'dimension';
  return out;
}

/** A vector held as Binary, or null when its length is not a whole number of floats. */
export function readVectorBinary(bytes: string): Float32Array | null {
  if (bytes.length % 4 !== 0) return null;
  const buf = Buffer.from(bytes, 'latin1');
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

/** A vector as Binary: its floats as little-endian words, in a latin1 string. */
export function binaryOfVector(v: Float32Array): string {
  const buf = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i] as number, i * 4);
  return buf.toString('latin1');
}

/** The shortest digits that read back as the Float32 `x`, laid out without an exponent (Rust's `Display`). */
export function float32Text(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const exponential = float32Exponential(Math.abs(x));
  const at = exponential.indexOf('e');
  const digits = exponential.slice(0, at).replace('.', '');
  const point = Number(exponential.slice(at + 1)) + 1; // digits before the decimal point
  let text: string;
  if (point <= 0) text = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) text = digits + '0'.repeat(point - digits.length);
  else text = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return x < 0 ? `-${text}` : text;
}

/** Vector text as GreptimeDB writes it: `[1,2.5,inf]`. */
export function vectorText(v: Float32Array): string {
  let out = '[';
  for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + float32Text(v[i] as number);
  return `${out}]`;
}

const COLUMN_REASONS: Record<VectorTextError, string> = {
  brackets: 'not properly enclosed in brackets',
  element: 'elements are not all float32',
  dimension: 'wrong dimension',
};

/** Text written into a `VECTOR(dim)` column, as stored Binary; GreptimeDB's InvalidVector error otherwise. */
export function vectorCellOfText(text: string, dim: number): string {
  const v = readVectorText(text, dim);
  if (typeof v === 'string') {
    throw new DbError(
      ErrorCode.InvalidArguments,
      `Invalid Vector: Failed to parse ${text} to Vector value: ${COLUMN_REASONS[v]}`,
    );
  }
  return binaryOfVector(v);
}

/** Binary written into a `VECTOR(dim)` column: kept when it holds exactly `dim` floats. */
export function vectorCellOfBinary(bytes: string, dim: number): string {
  if (bytes.length !== dim * 4) {
    throw new DbError(
      ErrorCode.InvalidArguments,
      `Invalid Vector: wrong byte size, expected ${dim * 4}, got ${bytes.length}`,
    );
  }
  return bytes;
}
