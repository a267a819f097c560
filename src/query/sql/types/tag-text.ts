/**
 * Tags travel and rest as text (`InsertColumn` tags are `str` vectors, `WriteBatch` tags are
 * strings), whatever their SQL type. These two functions are the only place that text form is
 * defined: INSERT writes it, the shard reads it back into typed values.
 */
import { type DataType, isBinaryLike } from '../../../shared/types.js';
import { isBigIntType, isNumeric } from './type-names.js';
import type { Value } from './values.js';

/** The stored text of a tag value; null stays null (the series simply lacks the tag). */
export function tagText(v: Value): string | null {
  if (v === null) return null;
  return typeof v === 'string' ? v : String(v);
}

/** The typed value of stored tag text. */
export function tagValue(text: string | null, type: DataType): Value {
  if (text === null) return null;
  if (type === 'String' || isBinaryLike(type)) return text;
  if (type === 'Boolean') return text === 'true';
  if (isBigIntType(type)) return BigInt(text);
  if (isNumeric(type) || type === 'Date') return Number(text);
  return text;
}
