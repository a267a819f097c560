/**
 * The data channel of a HEC request: the `X-Splunk-Request-Channel` header, else `?channel=`. A
 * channel is a GUID the client makes up; indexer acknowledgement numbers requests per channel, so
 * one slow client cannot hold up another's ids. Without acknowledgement a channel is optional.
 */
import { ClientError } from '../../errors/catalogue.js';

/** A Splunk channel is a GUID (any case; hyphenated 8-4-4-4-12 hex digits). */
const GUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

/**
 * The request's channel in lower case (clients may change the case of a GUID between requests),
 * or null when none was sent. A channel that is not a GUID is Splunk's `Invalid data channel` (11).
 */
export function channelOf(headers: Map<string, string>, query: URLSearchParams): string | null {
  const channel = headers.get('x-splunk-request-channel') ?? query.get('channel');
  if (channel === undefined || channel === null) return null;
  if (!GUID.test(channel)) throw new ClientError('HecInvalidDataChannel', 'Invalid data channel');
  return channel.toLowerCase();
}

/** The request's channel, required: without one, Splunk's `Data channel is missing` (10). */
export function requireChannel(headers: Map<string, string>, query: URLSearchParams): string {
  const channel = channelOf(headers, query);
  if (channel === null) throw new ClientError('HecDataChannelMissing', 'Data channel is missing');
  return channel;
}
