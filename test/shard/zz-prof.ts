import fs from 'node:fs';
import { encodeWriteBatch } from '../../src/shared/codec/write-batch.js';
import { openStore } from './helpers.js';
const dir = fs.mkdtempSync('/tmp/bench-');
const SERIES = 100000, BATCH = 5000, BATCHES = 200;
const store = await openStore(dir, { memtable: { flushBytes: 1024 * 1024 * 1024 }, segment: { blockRows: 8192, compactionTrigger: 400 } });
function batch(b: number): Uint8Array {
  const ts = new BigInt64Array(BATCH); const host: string[] = [];
  for (let i = 0; i < BATCH; i++) { const s = (b * BATCH + i) % SERIES; host.push(`host-${s}`); ts[i] = 1_700_000_000_000n + BigInt(Math.floor((b * BATCH + i) / SERIES)) * 1000n; }
  const fields = [];
  for (let f = 0; f < 10; f++) { const v = new Float64Array(BATCH); for (let i = 0; i < BATCH; i++) v[i] = i; fields.push({ id: 10 + f, vector: { kind: 'f64' as const, values: v } }); }
  return encodeWriteBatch({ tables: [{ tableId: 1, mergeMode: 'last_row', rowCount: BATCH, timestamps: ts, tags: [{ id: 2, values: host }], fields }] });
}
for (let b = 0; b < BATCHES; b += 4) await store.write([batch(b), batch(b + 1), batch(b + 2), batch(b + 3)]);
const cols = [{ id: 2, kind: 'str' as const, role: 'tag' as const }, { id: 0, kind: 'i64' as const, role: 'time' as const }, ...Array.from({ length: 10 }, (_, f) => ({ id: 10 + f, kind: 'f64' as const, role: 'field' as const }))];
const which = process.env.WHICH ?? 'mem';
if (which === 'seg') await store.flush();
for (let k = 0; k < 3; k++) { const s = performance.now(); let n = 0; for (const c of store.scan({ tableId: 1, columns: cols })) n += c.rowCount; console.log(which, n, (performance.now() - s).toFixed(0), 'ms'); }
await store.close(); fs.rmSync(dir, { recursive: true });
