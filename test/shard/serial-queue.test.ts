/**
 * The store's one-at-a-time queues (src/shard/serial-queue.ts): tasks run alone and in order, an
 * urgent task (a flush) goes ahead of the deferrable ones (compactions) waiting at the end of the
 * queue but never ahead of any other, and a failing task fails only its own caller.
 */
import t from 'tap';
import { SerialQueue } from '../../src/shard/serial-queue.js';

t.test('urgent tasks pass waiting deferrable ones, nothing else', async (t) => {
  const q = new SerialQueue();
  const order: string[] = [];
  let running = 0;
  const task = (name: string) => async () => {
    running++;
    t.equal(running, 1, `${name} runs alone`);
    await new Promise((r) => setTimeout(r, 2));
    order.push(name);
    running--;
  };
  const done = [
    q.run(task('A')),
    q.run(task('B'), 'deferrable'),
    q.run(task('C'), 'deferrable'),
    q.run(task('D'), 'urgent'),
    q.run(task('E')),
    q.run(task('F'), 'urgent'),
    q.run(task('G'), 'deferrable'),
    q.run(task('H'), 'urgent'),
  ];
  await Promise.all(done);
  t.same(order, ['A', 'D', 'B', 'C', 'E', 'F', 'H', 'G']);
});

t.test("a task's result or error reaches its caller only", async (t) => {
  const q = new SerialQueue();
  const failed = q.run(() => {
    throw new Error('boom');
  });
  const next = q.run(() => 42);
  await t.rejects(failed, /boom/);
  t.equal(await next, 42, 'the queue goes on after a failure');
});
