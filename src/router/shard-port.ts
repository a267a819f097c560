/**
 * A message channel of the router's straight to one shard's thread, beside its Piscina pool,
 * for the tasks on a request's path: queries, ingest decodes and group commits (each kind is
 * bounded in src/router/shards.ts, so nothing queues here that the pool's queue would have held).
 *
 * Why: a task through Piscina costs about 40 µs more than the same round trip on a bare port
 * (its task record and async resource on this side, a handler lookup and two awaits on the
 * other), measured at 87–120 µs against 54–74 µs on the 2-core machine, and a one-host query's
 * whole answer takes ~750 µs (bench/RESULTS.md). The thread is still the pool's one worker, which
 * also takes every other task; only the envelope differs. The shard answers every task it takes
 * (src/shard/task-port.ts), errors included, so a missing answer means the thread is gone: then
 * every task waiting here fails.
 */
import type { MessagePort } from 'node:worker_threads';
import { DbError, ErrorCode } from '../shared/errors.js';
import type { PortAnswer, PortTask, ShardReply, ShardTask } from '../shared/messages.js';

interface Waiter {
  resolve: (reply: ShardReply<unknown>) => void;
  reject: (err: Error) => void;
}

export class ShardPort {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  private closed: DbError | null = null;

  constructor(
    private readonly shardId: number,
    private readonly port: MessagePort,
    /**
     * An answer that could not be deserialised here: its task can never be told apart, so it is
     * reported (the request's own deadline answers its client).
     */
    onLost: (err: Error) => void = () => undefined,
  ) {
    port.on('message', (answer: PortAnswer) => {
      const waiter = this.waiting.get(answer.id);
      if (waiter === undefined) return;
      this.waiting.delete(answer.id);
      if (this.waiting.size === 0) port.unref();
      waiter.resolve(answer.reply);
    });
    port.on('messageerror', onLost);
    port.on('close', () => this.fail(new DbError(ErrorCode.StorageUnavailable, `shard ${this.shardId} is gone`)));
    // Like a pool with a task out, the channel keeps the process alive only while a task waits.
    port.unref();
  }

  /** Sends `task`; resolves with the shard's reply (which may carry an error of its own). */
  run<T>(task: ShardTask, transferList?: readonly ArrayBuffer[]): Promise<ShardReply<T>> {
    if (this.closed !== null) return Promise.reject(this.closed);
    const id = this.nextId++;
    return new Promise<ShardReply<T>>((resolve, reject) => {
      if (this.waiting.size === 0) this.port.ref();
      this.waiting.set(id, { resolve: resolve as Waiter['resolve'], reject });
      try {
        this.port.postMessage({ id, task } satisfies PortTask, transferList);
      } catch (err) {
        this.waiting.delete(id);
        if (this.waiting.size === 0) this.port.unref();
        reject(err as Error);
      }
    });
  }

  /** Closes the channel (server shutdown); tasks still waiting fail. */
  close(): void {
    this.fail(new DbError(ErrorCode.StorageUnavailable, `shard ${this.shardId} is closed`));
    this.port.close();
  }

  private fail(err: DbError): void {
    this.closed ??= err;
    const waiters = [...this.waiting.values()];
    this.waiting.clear();
    this.port.unref();
    for (const w of waiters) w.reject(err);
  }
}
