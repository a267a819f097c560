/**
 * Parse errors with a source range, and Prometheus' `line:col` rendering of positions (used for
 * parse errors and for annotation suffixes such as `(1:15)`).
 */

import type { PositionRange } from './ast.js';

/** A parse or type error at a source range; the parser adds the `line:col` prefix. */
export class ParseError extends Error {
  constructor(
    message: string,
    readonly pos: PositionRange,
  ) {
    super(message);
  }
}

/** `line:col` of a UTF-16 offset, counting columns in UTF-8 bytes as Prometheus does. */
export function positionText(query: string, offset: number): string {
  if (offset < 0 || offset > query.length) return 'invalid position';
  const before = query.slice(0, offset);
  const lastBreak = before.lastIndexOf('\n');
  const line = before.split('\n').length;
  const column = Buffer.byteLength(before.slice(lastBreak + 1)) + 1;
  return `${line}:${column}`;
}
