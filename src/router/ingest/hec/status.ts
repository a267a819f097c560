/**
 * Splunk HEC answers: every response is `{"text": ..., "code": N}` with Splunk's documented status
 * codes (Splunk "Troubleshoot HTTP Event Collector"; reference ingest §5), plus
 * `"invalid-event-number"` (0-based index of the first bad event of a batch) on per-event errors.
 * Clients branch on `code`, so these numbers and their HTTP statuses are the contract.
 *
 *   0 200 Success                  5 400 No data                 6 400 Invalid data format
 *   2 401 Token is required        7 400 Incorrect index         8 500 Internal server error
 *   4 403 Invalid token            9 503 Server is busy         10 400 Data channel is missing
 *  11 400 Invalid data channel    12 400 Event field is required
 *  13 400 Event field cannot be blank                           14 400 ACK is disabled
 *  15 400 Error in handling indexed fields                      17 200 HEC is healthy
 */
import { ClientError, HEC } from '../../errors/catalogue.js';
import type { HttpResponse } from '../../http/context.js';

/** Splunk's codes; the refusals are catalogue kinds (`Hec*`), which fix each one's status. */
export const HecCode = HEC;

/** The body `{"text", "code"[, "invalid-event-number"]}` with its status. */
export function hecResponse(status: number, code: number, text: string, invalidEventNumber?: number): HttpResponse {
  const body: Record<string, unknown> = { text, code };
  if (invalidEventNumber !== undefined) body['invalid-event-number'] = invalidEventNumber;
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/**
 * The 200 of a write: `{"text":"Success","code":0}`, plus `"ackId"` when indexer acknowledgement
 * issued one (Splunk puts it last).
 */
export function hecSuccess(ackId?: number): HttpResponse {
  const body: Record<string, unknown> = { text: 'Success', code: HecCode.Success };
  if (ackId !== undefined) body.ackId = ackId;
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** `Invalid data format` (6) for event number `n` of the batch. */
export function invalidDataFormat(n: number): ClientError {
  return new ClientError('HecInvalidDataFormat', 'Invalid data format', { invalidEventNumber: n });
}

/** `Error in handling indexed fields` (15) for event number `n`. */
export function indexedFieldsError(n: number): ClientError {
  return new ClientError('HecIndexedFields', 'Error in handling indexed fields', { invalidEventNumber: n });
}

export const NO_DATA = (): ClientError => new ClientError('HecNoData', 'No data');
