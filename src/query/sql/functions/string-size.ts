/**
 * A bound on what string-building functions produce. `repeat('x', 2000000000)` asks V8 for a
 * string past its own maximum, and `lpad(s, 100000000)` for a very long one: the size is known from
 * the arguments, so it is counted before the string is built, over all rows of one evaluation
 * (a column of 8192 rows of a 100 MB string each is as bad as one huge value).
 */
import { STRING_RESULT_CHARS_MAX } from '../../../shared/config.js';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import { countRejection } from '../../../shared/rejections.js';

/** Characters produced by one evaluation of one string-building function. */
export class StringSizeGuard {
  private chars = 0;

  constructor(private readonly name: string) {}

  /** Counts `length` more characters (UTF-16 units); throws 6000 once past STRING_RESULT_CHARS_MAX. */
  reserve(length: number): void {
    this.chars += Math.max(0, length);
    if (this.chars > STRING_RESULT_CHARS_MAX) {
      countRejection('query_memory');
      throw new DbError(
        ErrorCode.RuntimeResourcesExhausted,
        `Resources exhausted: string size overflow on ${this.name}, max size is ${STRING_RESULT_CHARS_MAX} characters, but got ${this.chars}`,
      );
    }
  }
}

/**
 * The length of `s.replaceAll(from, to)`, or any number past STRING_RESULT_CHARS_MAX once it is
 * sure to pass it: occurrences are counted only while they could still fit, so a huge input
 * costs no more than the bound to refuse.
 */
export function replacedLength(s: string, from: string, to: string): number {
  const growth = to.length - from.length;
  if (growth <= 0) return s.length;
  // An empty `from` matches every gap between code units.
  if (from.length === 0) return s.length + (s.length + 1) * growth;
  const enough = Math.floor((STRING_RESULT_CHARS_MAX - s.length) / growth) + 1;
  let count = 0;
  for (let i = s.indexOf(from); i >= 0 && count < enough; i = s.indexOf(from, i + from.length)) count++;
  return s.length + count * growth;
}
