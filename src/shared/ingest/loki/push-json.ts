/**
 * The JSON form of a Loki push (`Content-Type: application/json`):
 *
 *   {"streams":[{"stream":{"job":"api"},"values":[["<ns>","line",{"trace_id":"abc"}]]}]}
 *
 * The timestamp is a string of integer nanoseconds (exact beyond 2^53), the optional third element
 * is the structured metadata object with string values. Unlike GreptimeDB, which skips malformed
 * streams and entries, any malformed part rejects the whole request with a message that names it
 * (as Loki itself does), so nothing of a bad request is stored.
 */
import { InvalidArgument } from '../../errors.js';
import { type LokiEntry, type LokiStream, timestampNsInRange } from './push-streams.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

const INTEGER_TEXT = /^-?[0-9]+$/;

function invalid(message: string): InvalidArgument {
  return new InvalidArgument(`Invalid Loki JSON request: ${message}`);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object whose values must all be strings, as name/value pairs. */
function stringPairs(value: unknown, where: string): Array<[string, string]> {
  if (!isPlainObject(value)) throw invalid(`${where} must be an object of strings, got ${kindOf(value)}`);
  const out: Array<[string, string]> = [];
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== 'string') {
      throw invalid(`${where}.${name} must be a string, got ${kindOf(v)}`);
    }
    out.push([name, v]);
  }
  return out;
}

function entryOf(value: unknown, where: string): LokiEntry {
  if (!Array.isArray(value))
    throw invalid(`${where} must be an array [timestamp, line, metadata?], got ${kindOf(value)}`);
  if (value.length < 2 || value.length > 3) {
    throw invalid(`${where} must have 2 or 3 elements [timestamp, line, metadata?], got ${value.length}`);
  }
  const [ts, line, metadata] = value as unknown[];
  if (typeof ts !== 'string' || !INTEGER_TEXT.test(ts)) {
    throw invalid(
      `${where}[0] must be a string of integer nanoseconds, got ${typeof ts === 'string' ? JSON.stringify(ts) : kindOf(ts)}`,
    );
  }
  const timestampNs = BigInt(ts);
  if (!timestampNsInRange(timestampNs)) throw invalid(`${where}[0] is outside the int64 nanosecond range`);
  if (typeof line !== 'string') throw invalid(`${where}[1] (the line) must be a string, got ${kindOf(line)}`);
  return {
    timestampNs,
    line,
    metadata: value.length === 3 ? stringPairs(metadata, `${where}[2]`) : [],
  };
}

/** Decodes a JSON push body; throws `InvalidArgument` (400) naming the first malformed part. */
export function decodePushJson(body: Buffer): LokiStream[] {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw invalid('the body is not valid UTF-8');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (err) {
    throw invalid((err as Error).message);
  }
  if (!isPlainObject(payload)) throw invalid(`the payload must be an object, got ${kindOf(payload)}`);
  const streams = payload.streams;
  if (streams === undefined) throw invalid('missing `streams`');
  if (!Array.isArray(streams)) throw invalid(`\`streams\` must be an array, got ${kindOf(streams)}`);
  const out: LokiStream[] = [];
  for (let s = 0; s < streams.length; s++) {
    const stream = streams[s] as unknown;
    const where = `streams[${s}]`;
    if (!isPlainObject(stream)) throw invalid(`${where} must be an object, got ${kindOf(stream)}`);
    // A stream without labels is accepted, as GreptimeDB does; its rows get NULL label columns.
    const labels = stream.stream === undefined ? [] : stringPairs(stream.stream, `${where}.stream`);
    const values = stream.values;
    if (values === undefined) throw invalid(`${where} is missing \`values\``);
    if (!Array.isArray(values)) throw invalid(`${where}.values must be an array, got ${kindOf(values)}`);
    const entries: LokiEntry[] = [];
    for (let e = 0; e < values.length; e++) entries.push(entryOf(values[e], `${where}.values[${e}]`));
    out.push({ labels, entries });
  }
  return out;
}
