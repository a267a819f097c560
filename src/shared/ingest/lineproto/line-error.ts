/** How the scanner reports a malformed line: a reason, to which the point loop adds the line number. */
import { countRejection } from '../../rejections.js';

/** Internal: carries a reason up to the point loop, which adds the line number. */
export class LineError extends Error {}

export function fail(reason: string): never {
  throw new LineError(reason);
}

/** `ingest.line_max_bytes` crossed: counted as a refusal by limit, then failed like any bad line. */
export function tooLong(maxLineBytes: number): never {
  countRejection('line_length');
  fail(`line exceeds ${maxLineBytes} bytes (ingest.line_max_bytes)`);
}
