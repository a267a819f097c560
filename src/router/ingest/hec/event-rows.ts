/**
 * Parsed HEC events → `HecRow`s, checking each event the way Splunk does and stopping at the first
 * bad one (the whole batch is refused, nothing stored):
 *
 *   not an object, bad `time`/`host`/`source`/`sourcetype`   6  Invalid data format
 *   no `event` key                                            12 Event field is required
 *   `event` null, "" or only whitespace                       13 Event field cannot be blank
 *   `index` that cannot name a table                          7  Incorrect index
 *   `fields` not a flat object, or a key that is a column    15 Error in handling indexed fields
 *
 * each with `invalid-event-number`. Other top-level keys are ignored, as Splunk ignores them.
 */

import { ClientError } from '../../errors/catalogue.js';
import { type HecRow, METADATA_TAGS, RESERVED_COLUMNS } from './hec-rows.js';
import { hecTimeToNs } from './hec-time.js';
import { indexedFieldsError, invalidDataFormat } from './status.js';
import { tableOfIndex } from './table-name.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The event text: strings as sent, anything else as its JSON text. */
function eventText(value: unknown, n: number): string {
  if (value === null)
    throw new ClientError('HecEventFieldBlank', 'Event field cannot be blank', { invalidEventNumber: n });
  if (typeof value === 'string') {
    if (value.trim() === '')
      throw new ClientError('HecEventFieldBlank', 'Event field cannot be blank', { invalidEventNumber: n });
    return value;
  }
  return JSON.stringify(value);
}

/** An indexed field's value as tag text; null for "no value". Nested objects are refused. */
function fieldValue(value: unknown, n: number): string | null {
  if (value === null || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // Splunk's multi-value fields: an array of scalars, kept as its JSON text.
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) return JSON.stringify(value);
  throw indexedFieldsError(n);
}

/**
 * The rows of `events`. `defaultTable` applies to events without a usable `index`; `nowNs` to
 * events without `time`.
 */
export function eventRows(events: unknown[], defaultTable: string, nowNs: bigint): HecRow[] {
  const rows: HecRow[] = [];
  for (let n = 0; n < events.length; n++) {
    const e = events[n];
    if (!isPlainObject(e)) throw invalidDataFormat(n);
    if (!('event' in e))
      throw new ClientError('HecEventFieldRequired', 'Event field is required', { invalidEventNumber: n });
    const event = eventText(e.event, n);

    let timestampNs = nowNs;
    if (e.time !== undefined && e.time !== null) {
      const ns = hecTimeToNs(e.time);
      if (ns === null) throw invalidDataFormat(n);
      timestampNs = ns;
    }

    let table = defaultTable;
    if (e.index !== undefined && e.index !== null) {
      if (typeof e.index !== 'string') throw invalidDataFormat(n);
      if (e.index.trim() !== '') {
        const named = tableOfIndex(e.index);
        if (named === null) throw new ClientError('HecIncorrectIndex', 'Incorrect index', { invalidEventNumber: n });
        table = named;
      }
    }

    const tags = new Map<string, string>();
    for (const key of METADATA_TAGS) {
      const value = e[key];
      if (value === undefined || value === null || value === '') continue;
      if (typeof value !== 'string') throw invalidDataFormat(n);
      tags.set(key, value);
    }
    if (e.fields !== undefined && e.fields !== null) {
      if (!isPlainObject(e.fields)) throw indexedFieldsError(n);
      for (const [key, raw] of Object.entries(e.fields)) {
        if (key === '' || RESERVED_COLUMNS.has(key)) throw indexedFieldsError(n);
        const value = fieldValue(raw, n);
        if (value !== null) tags.set(key, value);
      }
    }
    rows.push({ table, timestampNs, tags, event });
  }
  return rows;
}
