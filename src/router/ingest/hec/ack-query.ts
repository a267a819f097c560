/**
 * The body of `/services/collector/ack` and its answer: `{"acks":[0,1,2]}` →
 * `{"acks":{"0":true,"1":false,"2":true}}`. Anything else is Splunk's `Invalid data format` (6);
 * an empty body is `No data` (5).
 */
import { HEC_ACK_QUERY_IDS_MAX } from '../../../shared/config.js';
import { ClientError } from '../../errors/catalogue.js';
import { NO_DATA } from './status.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

const invalid = (): ClientError => new ClientError('HecInvalidDataFormat', 'Invalid data format');

/** The ids an `/ack` body asks about, in order (duplicates kept; the registry answers each once). */
export function parseAckQuery(body: Uint8Array): number[] {
  let value: unknown;
  try {
    const text = utf8.decode(body);
    if (text.trim() === '') throw NO_DATA();
    value = JSON.parse(text);
  } catch (err) {
    if (err instanceof ClientError) throw err;
    throw invalid();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid();
  const acks = (value as Record<string, unknown>).acks;
  if (!Array.isArray(acks) || acks.length > HEC_ACK_QUERY_IDS_MAX) throw invalid();
  for (const id of acks) {
    if (!Number.isSafeInteger(id) || (id as number) < 0) throw invalid();
  }
  return acks as number[];
}

/** The answer body: ids as object keys (JSON objects list integer keys in ascending order). */
export function ackAnswerJson(answer: ReadonlyMap<number, boolean>): string {
  const acks: Record<string, boolean> = {};
  for (const [id, durable] of answer) acks[String(id)] = durable;
  return JSON.stringify({ acks });
}
