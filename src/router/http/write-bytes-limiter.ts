/**
 * Bounds the summed body size of write requests handled at once (GreptimeDB's
 * `max_in_flight_write_bytes`). Without it a burst of large writes queues without limit in router
 * memory and in the shard inboxes; with it, writers wait for room (or fail fast with 429).
 */
import type { WriteBytesExhaustedPolicy } from '../../shared/config.js';
import { countRejection } from '../../shared/rejections.js';
import { ClientError } from '../errors/catalogue.js';

interface Waiter {
  bytes: number;
  grant: () => void;
}

/** What a refused writer is told: in-flight writes drain in well under a second when healthy. */
const RETRY_AFTER = { 'retry-after': '1' };

export class WriteBytesLimiter {
  private inFlight = 0;
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly maxBytes: number,
    private readonly policy: WriteBytesExhaustedPolicy,
  ) {}

  /** Bytes currently admitted. */
  get used(): number {
    return this.inFlight;
  }

  /**
   * Admits `bytes` and resolves to a release function (call it exactly once). A request larger
   * than the whole bound is admitted alone once nothing else is in flight, so it is never refused
   * for its size here (body_limit does that).
   */
  async acquire(bytes: number, signal: AbortSignal): Promise<() => void> {
    if (this.maxBytes <= 0) return () => undefined;
    if (this.waiters.length === 0 && this.fits(bytes)) {
      this.inFlight += bytes;
    } else if (this.policy.kind === 'fail') {
      countRejection('write_bytes');
      throw new ClientError(
        'WriteBytesExhausted',
        `Request body memory limit exceeded: ${this.inFlight} bytes in flight, limit ${this.maxBytes}`,
        { headers: RETRY_AFTER },
      );
    } else {
      // Resolves once wake() has admitted (and counted) these bytes.
      await this.wait(bytes, this.policy.waitMs, signal);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= bytes;
      this.wake();
    };
  }

  private fits(bytes: number): boolean {
    return this.inFlight === 0 || this.inFlight + bytes <= this.maxBytes;
  }

  private wait(bytes: number, waitMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const leave = (): void => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        signal.removeEventListener('abort', onAbort);
        clearTimeout(timer);
        // A waiter leaving the head of the queue may unblock the ones behind it.
        this.wake();
      };
      const waiter: Waiter = {
        bytes,
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        leave();
        countRejection('write_bytes');
        reject(
          new ClientError(
            'WriteBytesExhausted',
            `Request body memory limit exceeded: waited ${waitMs} ms for ${bytes} bytes (${this.inFlight} in flight, limit ${this.maxBytes})`,
            { headers: RETRY_AFTER },
          ),
        );
      }, waitMs);
      const onAbort = (): void => {
        leave();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Admits waiters in arrival order while they fit, counting their bytes as it admits them. */
  private wake(): void {
    while (this.waiters.length > 0) {
      const next = this.waiters[0] as Waiter;
      if (!this.fits(next.bytes)) return;
      this.waiters.shift();
      this.inFlight += next.bytes;
      next.grant();
    }
  }
}
