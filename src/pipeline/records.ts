/**
 * The records of a `/v1/ingest` (or dry-run) body, by content type (reference §7):
 *
 * - `application/json`: a stream of JSON values separated by optional whitespace; each object is
 *   a record, each array contributes its items (one level), which must be objects. A bad item
 *   fails the body, or with `ignoreErrors` is skipped; invalid JSON fails the body, or with
 *   `ignoreErrors` ends it (what came before is kept), as GreptimeDB's stream reader does.
 * - `application/x-ndjson`: one JSON object per line; empty lines are skipped; a bad line fails
 *   with its 0-based line index, or is skipped with `ignoreErrors`.
 * - `text/plain`: each non-empty line becomes `{message: line}`.
 *
 * Parameters such as `; charset=utf-8` are allowed after the type; the type is case-insensitive.
 */
import { JSON_DEPTH_MAX, JSON_TOO_DEEP, jsonStringEnd, nestedTooDeep } from '../shared/json-depth.js';
import { mediaTypeOf } from '../shared/media-type.js';
import { isRecord, type PipelineRecord, type PipelineValue } from './value.js';

/** A body that cannot be turned into records; the message is the client-facing reason. */
export class InvalidRecords extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidRecords';
  }
}

const SUPPORTED = ['application/json', 'application/x-ndjson', 'text/plain'];
const NOT_OBJECT = 'json format error, please check the date is valid JSON.';
const utf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

export function parseRecords(body: Buffer, contentType: string, ignoreErrors: boolean): PipelineRecord[] {
  const type = mediaTypeOf(contentType);
  switch (type) {
    case 'application/json':
      return parseJsonStream(body, ignoreErrors);
    case 'application/x-ndjson':
      return parseNdjson(body, ignoreErrors);
    case 'text/plain':
      return parseText(body);
    default:
      throw new InvalidRecords(`invalid content type: ${contentType}, expected: one of ${SUPPORTED.join(', ')}`);
  }
}

function parseJsonStream(body: Buffer, ignoreErrors: boolean): PipelineRecord[] {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    if (!ignoreErrors) throw new InvalidRecords('invalid JSON: the body is not valid UTF-8');
    // Keep what precedes the first bad byte, as a stream reader would.
    text = lenientUtf8.decode(body).split('\uFFFD')[0] ?? '';
  }
  const out: PipelineRecord[] = [];
  let pos = skipSpace(text, 0);
  while (pos < text.length) {
    const end = valueEnd(text, pos);
    let value: PipelineValue;
    try {
      if (valueDepth > JSON_DEPTH_MAX) throw new Error(JSON_TOO_DEEP);
      value = JSON.parse(text.slice(pos, end)) as PipelineValue;
    } catch (err) {
      if (ignoreErrors) break;
      throw new InvalidRecords(`invalid JSON: ${(err as Error).message}`);
    }
    for (const item of Array.isArray(value) ? value : [value]) {
      if (isRecord(item)) out.push(item);
      else if (!ignoreErrors) throw new InvalidRecords(NOT_OBJECT);
    }
    pos = skipSpace(text, end);
  }
  return out;
}

function skipSpace(text: string, pos: number): number {
  while (pos < text.length && ' \t\n\r'.includes(text[pos] as string)) pos++;
  return pos;
}

/**
 * Where the JSON value starting at `pos` ends: after the bracket closing its opening one (strings
 * skipped), after a string's closing quote, or at the first delimiter after a scalar. Malformed
 * text yields some end; JSON.parse then reports the problem. Measures the value's nesting on the
 * way (`valueDepth`), so the depth limit costs no second pass over the text.
 */
/** The deepest nesting of objects and arrays in the value `valueEnd` last measured. */
let valueDepth = 0;

function valueEnd(text: string, pos: number): number {
  valueDepth = 0;
  const first = text[pos];
  if (first === '"') return jsonStringEnd(text, pos);
  if (first !== '{' && first !== '[') {
    let i = pos;
    while (i < text.length && !' \t\n\r{}[],"'.includes(text[i] as string)) i++;
    return i === pos ? pos + 1 : i;
  }
  let depth = 0;
  for (let i = pos; i < text.length; i++) {
    const c = text[i];
    if (c === '"') i = jsonStringEnd(text, i) - 1;
    else if (c === '{' || c === '[') {
      if (++depth > valueDepth) valueDepth = depth;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/** The body's lines without their `\n` / `\r\n` ends, as raw bytes. */
function* lines(body: Buffer): Generator<Buffer> {
  let start = 0;
  while (start < body.length) {
    let nl = body.indexOf(0x0a, start);
    if (nl < 0) nl = body.length;
    const end = nl > start && body[nl - 1] === 0x0d ? nl - 1 : nl;
    yield body.subarray(start, end);
    start = nl + 1;
  }
}

function parseNdjson(body: Buffer, ignoreErrors: boolean): PipelineRecord[] {
  const out: PipelineRecord[] = [];
  let index = -1;
  for (const raw of lines(body)) {
    index++;
    if (raw.length === 0) continue;
    let line: string;
    try {
      line = utf8.decode(raw);
    } catch {
      if (ignoreErrors) continue;
      throw new InvalidRecords(`invalid line at index: ${index}`);
    }
    let value: unknown;
    try {
      value = nestedTooDeep(line, 0, line.length) ? undefined : JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (isRecord(value)) out.push(value as PipelineRecord);
    else if (!ignoreErrors) throw new InvalidRecords(`invalid JSON at index: ${index}`);
  }
  return out;
}

function parseText(body: Buffer): PipelineRecord[] {
  const out: PipelineRecord[] = [];
  for (const raw of lines(body)) {
    if (raw.length === 0) continue;
    try {
      out.push({ message: utf8.decode(raw) });
    } catch {
      // GreptimeDB drops lines that are not UTF-8 rather than failing the body.
    }
  }
  return out;
}
