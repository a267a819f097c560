/**
 * The body of `/services/collector/event`: JSON events one after the other, with or without
 * whitespace between them (`{...}{...}` is how Splunk's own loggers batch), or JSON arrays of events
 * (flattened), or a mix. Each top-level value is found by scanning for its end (strings and nesting
 * tracked), then parsed with JSON.parse.
 *
 * Events are numbered from 0 in body order across arrays; a value that does not parse gets
 * `Invalid data format` (code 6) with the number of the event it would have been, which is how
 * Splunk reports the first bad event of a batch.
 */
import { JSON_TOO_DEEP, nestedTooDeep } from '../../../shared/json-depth.js';
import { invalidDataFormat } from './status.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * The index just past the JSON value starting at `start`, or -1 when the text ends first. Only
 * finds the end; JSON.parse judges the value.
 */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === 0x22) return stringEnd(text, start);
  if (first !== 0x7b && first !== 0x5b) {
    // A bare scalar runs to the next whitespace or structural character.
    let i = start;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (isSpace(c) || c === 0x7b || c === 0x5b || c === 0x22 || c === 0x7d || c === 0x5d) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i < 0) return -1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** The index just past the string literal starting at `start` (a `"`), or -1 when unterminated. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x22) return i + 1;
    else i++;
  }
  return -1;
}

/**
 * Splits and parses the events of a body. Throws `HecInvalidDataFormat` (Splunk's code 6) when the body is not UTF-8 or a
 * value does not parse. An empty result means "No data" to the caller.
 */
export function parseEventStream(body: Buffer): unknown[] {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw invalidDataFormat(0);
  }
  const events: unknown[] = [];
  let pos = 0;
  for (;;) {
    while (pos < text.length && isSpace(text.charCodeAt(pos))) pos++;
    if (pos >= text.length) return events;
    const end = valueEnd(text, pos);
    if (end < 0 || end === pos) throw invalidDataFormat(events.length);
    let value: unknown;
    try {
      if (nestedTooDeep(text, pos, end)) throw new Error(JSON_TOO_DEEP);
      value = JSON.parse(text.slice(pos, end));
    } catch {
      throw invalidDataFormat(events.length);
    }
    if (Array.isArray(value)) {
      for (const item of value) events.push(item);
    } else {
      events.push(value);
    }
    pos = end;
  }
}
