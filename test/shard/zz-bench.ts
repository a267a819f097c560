import fs from 'node:fs';
import { encodeWriteBatch } from '../../src/shared/codec/write-batch.js';
import { openStore } from './helpers.js';
const dir = fs.mkdtempSync('/tmp/bench-');
const SERIES = Number(process.env.SERIES ?? 1000);
const BATCH = 5000, GROUP = 4, BATCHES = Number(process.env.BATCHES ?? 200);
const store = await openStore(dir, { memtable: { flushBytes: 64 * 1024 * 1024 }, segment: { blockRows: 8192, compactionTrigger: 4 } });
let t0 = 1_700_000_000_000n;
function batch(b: number): Uint8Array {
  const ts = new BigInt64Array(BATCH);
  const host: string[] = [], region: string[] = [];
  for (let i = 0; i < BATCH; i++) { const s = (b * BATCH + i) % SERIES; host.push(`host-${s}`); region.push(`r${s % 7}`); ts[i] = t0 + BigInt(Math.floor((b * BATCH + i) / SERIES)) * 1000n; }
  const fields = [];
  for (let f = 0; f < 10; f++) { const v = new Float64Array(BATCH); for (let i = 0; i < BATCH; i++) v[i] = Math.round(Math.random() * 1000) / 10; fields.push({ id: 10 + f, vector: { kind: 'f64' as const, values: v } }); }
  return encodeWriteBatch({ tables: [{ tableId: 1, mergeMode: 'last_row', rowCount: BATCH, timestamps: ts, tags: [{ id: 2, values: host }, { id: 3, values: region }], fields }] });
}
const payloads: Uint8Array[] = [];
for (let b = 0; b < BATCHES; b++) payloads.push(batch(b));
let start = performance.now();
for (let b = 0; b < BATCHES; b += GROUP) await store.write(payloads.slice(b, b + GROUP));
let ms = performance.now() - start;
console.log(`write: ${(BATCHES * BATCH / ms * 1000).toFixed(0)} rows/s`, JSON.stringify({ ...store.stats(), recovery: undefined }));
const cols = [{ id: 2, kind: 'str' as const, role: 'tag' as const }, { id: 0, kind: 'i64' as const, role: 'time' as const }, ...Array.from({ length: 10 }, (_, f) => ({ id: 10 + f, kind: 'f64' as const, role: 'field' as const }))];
function scanAll(label: string) {
  const s = performance.now(); let n = 0;
  for (const c of store.scan({ tableId: 1, columns: cols })) n += c.rowCount;
  const d = performance.now() - s; console.log(`${label}: ${n} rows in ${d.toFixed(0)} ms = ${(n / d * 1000).toFixed(0)} rows/s`);
}
scanAll('scan mixed');
start = performance.now(); await store.flush(); console.log(`flush ${(performance.now() - start).toFixed(0)} ms`);
scanAll('scan segments');
scanAll('scan segments again');
start = performance.now(); await store.compact(); console.log(`compact ${(performance.now() - start).toFixed(0)} ms`, store.stats().segmentCount, store.stats().segmentBytes);
scanAll('scan compacted');
await store.close();
start = performance.now(); const s2 = await openStore(dir); console.log(`reopen ${(performance.now() - start).toFixed(0)} ms`); await s2.close();
fs.rmSync(dir, { recursive: true });
