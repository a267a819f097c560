/**
 * A real crash: a child process writes (with background flushes and compactions going on) and is
 * killed with SIGKILL; every write it saw resolve is complete after reopening.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { openStore, scanRows, tempDir } from './helpers.js';

const WRITER = fileURLToPath(new URL('./fixtures/sigkill-writer.ts', import.meta.url));

/** Runs the writer until it acknowledged `acks` batches, then SIGKILLs it; returns the acked ids. */
function writeAndKill(dir: string, first: number, acks: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, WRITER, dir, String(first)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acked: number[] = [];
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('acked ')) acked.push(Number(line.slice(6)));
      if (acked.length >= acks) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`writer exited early (${signal ?? _code})`));
    });
  });
}

t.test('every write that resolved before SIGKILL is complete after reopening', async (t) => {
  const dir = tempDir(t);
  const allAcked: number[] = [];
  for (let round = 0; round < 2; round++) {
    const acked = await writeAndKill(dir, round * 100_000, 150);
    t.ok(acked.length >= 150);
    const store = await openStore(dir);
    const counts = new Map<number, number>();
    for (const row of scanRows(store, 1, [{ id: 10, kind: 'f64', role: 'field' }])) {
      counts.set(row.f10 as number, (counts.get(row.f10 as number) ?? 0) + 1);
    }
    allAcked.push(...acked);
    const incomplete = allAcked.filter((b) => counts.get(b) !== 100);
    t.same(incomplete, [], `round ${round}: all ${allAcked.length} acknowledged batches have their 100 rows`);
    if (round === 0) t.ok(store.stats().segmentCount > 0, 'the writer had flushed before it was killed');
    t.ok(
      [...counts.values()].every((n) => n === 100),
      'no batch is partial',
    );
    await store.close();
  }
});
