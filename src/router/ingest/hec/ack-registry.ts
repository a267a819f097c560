/**
 * Indexer acknowledgement state (Splunk's `ackId`s): per data channel, the next id to issue and
 * the ids whose rows are durable but that no `/ack` query has reported yet.
 *
 * An id is issued only after its request's write has resolved, and the write path resolves only
 * once every shard the request touched made its part durable (WAL fsynced, in the default
 * `wal.sync_mode = "fsync"`). So every issued id is already true: unlike Splunk, which answers
 * before indexing, there is no "still indexing" state to track here. A request that fails, or
 * that was answered (timed out, client gone) before its write resolved, gets no id at all, so it
 * can never be reported true. With `sync_mode = "none"` a write resolves once its WAL record is
 * in the page cache, and true means no more than that: it survives a crash of the server process
 * but not of the machine.
 *
 * As in Splunk, an id reported true is forgotten (asked again, it is false), and state lives only
 * in memory: after a restart every channel starts again at id 0 and earlier ids answer false, so
 * a client resends what it has not seen acknowledged (at-least-once, as Splunk documents).
 *
 * Memory is bounded by three limits, all counted before a request is written so that a refusal
 * (503, Splunk's `Server is busy`, code 9) never follows a write: channels, ids pending in one
 * channel, ids pending in all. Requests being written count as pending. When the channel limit or
 * the total is reached, channels that no request is writing to make room, least recently used
 * first: an empty one (its ids restart at 0, harmless as none is outstanding), or one idle for
 * `ACK_CHANNEL_IDLE_MS` with its pending ids, which then answer false.
 */
import assert from 'node:assert';
import { ClientError } from '../../errors/catalogue.js';

/** Splunk's default `maxIdleTime`: a channel unused this long may be dropped to make room. */
export const ACK_CHANNEL_IDLE_MS = 600_000;

/** The bounds of the registry (`[hec]` keys `ack_max_*`), each at least 1. */
export interface AckLimits {
  /** Channels remembered at once (Splunk's `max_number_of_ack_channel`). */
  maxChannels: number;
  /** Ids pending in one channel (`max_number_of_acked_requests_pending_query_per_ack_channel`). */
  maxPendingPerChannel: number;
  /** Ids pending over all channels (`max_number_of_acked_requests_pending_query`). */
  maxPending: number;
}

/** A request's claim on one id of its channel: `issue` once its rows are durable, else `cancel`. */
export interface AckTicket {
  /** The request's rows are durable: returns its id, which answers true until reported once. */
  issue(): number;
  /** The request failed or was answered without its id: the claim is given back. */
  cancel(): void;
}

interface Channel {
  nextId: number;
  /** Issued ids not yet reported true. */
  readonly durable: Set<number>;
  /** Tickets neither issued nor cancelled: requests being written. */
  writing: number;
  lastUsedMs: number;
}

const serverBusy = (): ClientError => new ClientError('HecServerBusy', 'Server is busy');

/** Channels and their ids; one per server, keyed by whatever the route makes of a channel. */
export class AckRegistry {
  /** Least recently used first: every use of a channel moves it to the end. */
  private readonly channels = new Map<string, Channel>();
  /** Durable ids plus tickets being written, over all channels. */
  private pending = 0;

  constructor(
    private readonly limits: AckLimits,
    private readonly nowMs: () => number = Date.now,
  ) {
    assert(limits.maxChannels >= 1 && limits.maxPendingPerChannel >= 1 && limits.maxPending >= 1);
  }

  /** Channels remembered now. */
  get channelCount(): number {
    return this.channels.size;
  }

  /** Ids pending over all channels, including requests being written. */
  get pendingCount(): number {
    return this.pending;
  }

  /**
   * Claims room for one id on `key` before its request is written, creating the channel if new.
   * Throws Splunk's `Server is busy` (503, code 9) when a limit leaves no room.
   */
  reserve(key: string): AckTicket {
    const now = this.nowMs();
    let channel = this.use(key, now);
    if (channel === undefined) {
      if (this.channels.size >= this.limits.maxChannels && !this.evictOne(now, false)) throw serverBusy();
      channel = { nextId: 0, durable: new Set(), writing: 0, lastUsedMs: now };
      this.channels.set(key, channel);
    }
    if (channel.durable.size + channel.writing >= this.limits.maxPendingPerChannel) throw serverBusy();
    while (this.pending >= this.limits.maxPending) {
      if (!this.evictOne(now, true)) throw serverBusy();
    }
    channel.writing++;
    this.pending++;
    const claimed = channel;
    let settled = false;
    const settle = (): void => {
      assert(!settled, 'an ack ticket is settled once');
      settled = true;
      claimed.writing--;
    };
    return {
      issue: () => {
        settle();
        const id = claimed.nextId++;
        claimed.durable.add(id);
        return id;
      },
      cancel: () => {
        settle();
        this.pending--;
      },
    };
  }

  /**
   * Answers an `/ack` query: true for each id of `key` that is durable and not reported before,
   * which it then forgets; false for every other id (unknown, failed, already reported, dropped).
   * An id asked twice in one query keeps its first answer. An unknown channel is not created.
   */
  query(key: string, ids: readonly number[]): Map<number, boolean> {
    const channel = this.use(key, this.nowMs());
    const answer = new Map<number, boolean>();
    for (const id of ids) {
      if (answer.has(id)) continue;
      const durable = channel?.durable.delete(id) ?? false;
      if (durable) this.pending--;
      answer.set(id, durable);
    }
    return answer;
  }

  /** The channel of `key`, marked as just used, or undefined. */
  private use(key: string, now: number): Channel | undefined {
    const channel = this.channels.get(key);
    if (channel === undefined) return undefined;
    this.channels.delete(key);
    this.channels.set(key, channel);
    channel.lastUsedMs = now;
    return channel;
  }

  /**
   * Drops the least recently used channel that no request is writing to and that is empty (only
   * when `needPending` is false: an empty channel frees no ids) or idle for ACK_CHANNEL_IDLE_MS.
   * Returns whether one was dropped.
   */
  private evictOne(now: number, needPending: boolean): boolean {
    for (const [key, channel] of this.channels) {
      if (channel.writing > 0) continue;
      const idle = now - channel.lastUsedMs >= ACK_CHANNEL_IDLE_MS;
      const empty = channel.durable.size === 0;
      if (needPending ? !empty && idle : empty || idle) {
        this.pending -= channel.durable.size;
        this.channels.delete(key);
        return true;
      }
      // Channels are in order of last use: past the first one not idle, none is.
      if (needPending && !idle) return false;
    }
    return false;
  }
}
