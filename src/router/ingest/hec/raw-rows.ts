/**
 * The body of `/services/collector/raw`: plain UTF-8 text, one event per line (`\n` or `\r\n`), or
 * per `?linebreaker=` segment when one is given. Blank segments are dropped. Host, source,
 * sourcetype, time and table come from the URL and apply to every event of the request; each line
 * is stored whole in `event`.
 */

import { ClientError } from '../../errors/catalogue.js';
import type { HecRow } from './hec-rows.js';
import { NO_DATA } from './status.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What the URL says about every event of a raw request. */
export interface RawRequest {
  table: string;
  timestampNs: bigint;
  tags: Map<string, string>;
  /** Splits events instead of line ends; empty or absent means line ends. */
  lineBreaker?: string | undefined;
}

/** The rows of a raw body; `No data` (5) when nothing but blank text, code 6 when not UTF-8. */
export function rawRows(body: Buffer, request: RawRequest): HecRow[] {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new ClientError('HecInvalidDataFormat', 'Invalid data format');
  }
  const segments = request.lineBreaker ? text.split(request.lineBreaker) : text.split(/\r?\n/);
  const rows: HecRow[] = [];
  for (const segment of segments) {
    if (segment.trim() === '') continue;
    rows.push({ table: request.table, timestampNs: request.timestampNs, tags: request.tags, event: segment });
  }
  if (rows.length === 0) throw NO_DATA();
  return rows;
}
