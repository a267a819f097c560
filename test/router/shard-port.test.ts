/**
 * The router's direct channel to a shard (src/router/shard-port.ts) and the shard's end of it
 * (src/shard/task-port.ts), over a real MessageChannel: answers find their tasks when they come
 * back out of order, movable replies arrive with their buffers transferred, a reply that cannot be
 * cloned comes back as an error instead of never, and tasks waiting when the shard's end goes away
 * fail rather than hang.
 */
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import t from 'tap';
import { ShardPort } from '../../src/router/shard-port.js';
import { serveTaskPort } from '../../src/shard/task-port.js';
import { DbError, ErrorCode, fromWire } from '../../src/shared/errors.js';
import type { ShardReply, ShardTask } from '../../src/shared/messages.js';

const delayed = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('answers reach their own tasks, whatever order they come back in', async (t) => {
  const { port1, port2 } = new MessageChannel();
  // Flush tasks answer with their file number after a delay that makes the first one last.
  serveTaskPort(port2, async (task: ShardTask): Promise<ShardReply> => {
    const n = task.op === 'wal-sync-failed' ? task.file : -1;
    await delayed(n === 1 ? 60 : 5);
    return { ok: true, value: n * 10 };
  });
  const shard = new ShardPort(0, port1);
  t.teardown(() => shard.close());
  const order: number[] = [];
  const replies = await Promise.all(
    [1, 2, 3].map(async (file) => {
      const reply = await shard.run<number>({ op: 'wal-sync-failed', file });
      order.push(file);
      return reply;
    }),
  );
  t.same(
    replies.map((r) => (r.ok ? r.value : null)),
    [10, 20, 30],
  );
  t.equal(order[order.length - 1], 1, 'the slow task finished last and still got its own answer');
});

t.test('a movable reply arrives with its buffer transferred, not copied', async (t) => {
  const { port1, port2 } = new MessageChannel();
  const sent = new Float64Array([1.5, Number.NaN, Number.POSITIVE_INFINITY]);
  serveTaskPort(port2, async () => {
    const reply: ShardReply = { ok: true, value: sent };
    const movable = { [Piscina.transferableSymbol]: [sent.buffer], [Piscina.valueSymbol]: reply };
    return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]) as unknown as ShardReply;
  });
  const shard = new ShardPort(0, port1);
  t.teardown(() => shard.close());
  const reply = await shard.run<Float64Array>({ op: 'flush' });
  t.ok(reply.ok);
  if (!reply.ok) return;
  t.same([...reply.value], [1.5, Number.NaN, Number.POSITIVE_INFINITY]);
  t.equal(sent.byteLength, 0, 'the sender no longer holds the buffer');
});

t.test('a reply that cannot be cloned comes back as an error', async (t) => {
  const { port1, port2 } = new MessageChannel();
  serveTaskPort(port2, async () => ({ ok: true, value: { f: () => 1 } }) as unknown as ShardReply);
  const shard = new ShardPort(0, port1);
  t.teardown(() => shard.close());
  const reply = await shard.run({ op: 'flush' });
  t.equal(reply.ok, false);
  if (reply.ok) return;
  t.match(fromWire(reply.error).message, /could not be cloned/);
});

t.test("tasks waiting when the shard's end closes fail, and later ones fail at once", async (t) => {
  const { port1, port2 } = new MessageChannel();
  // A task the shard never answers (it is gone before it could).
  serveTaskPort(port2, () => new Promise<ShardReply>(() => undefined));
  const shard = new ShardPort(3, port1);
  const waiting = shard.run({ op: 'flush' });
  await delayed(20);
  port2.close();
  const err = await waiting.then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(err instanceof DbError);
  t.equal((err as DbError).code, ErrorCode.StorageUnavailable);
  t.match((err as DbError).message, /shard 3/);
  await t.rejects(shard.run({ op: 'flush' }), { code: ErrorCode.StorageUnavailable });
});
