/**
 * Differential test: random writes, flushes, compactions, clean reopens and crashes against a
 * plain in-memory model of the merge modes. Every scan (with random time ranges) must match.
 * The run is deterministic; set SHARD_MODEL_SEED to explore other seeds.
 */
import path from 'node:path';
import t from 'tap';
import type { ShardStore } from '../../src/shard/store.js';
import type { MergeMode } from '../../src/shared/codec/write-batch.js';
import type { ScanColumn } from '../../src/shared/scan.js';
import { seriesKeyOf } from '../../src/shared/series-key.js';
import { prng } from '../helpers/prng.js';
import { type Cell, copyDir, type Kinds, openStore, payload, scanRows, type TestRow, tempDir } from './helpers.js';

const KINDS: Kinds = { 10: 'f64', 11: 'i64', 12: 'str', 13: 'bool' };
const FIELD_IDS = [10, 11, 12, 13];
const COLUMNS: ScanColumn[] = [
  { id: 1, kind: 'str', role: 'tag' },
  { id: 2, kind: 'str', role: 'tag' },
  { id: 0, kind: 'i64', role: 'time' },
  ...FIELD_IDS.map((id) => ({ id, kind: KINDS[id] as ScanColumn['kind'], role: 'field' as const })),
];

type Row = Record<string, Cell>;

class Model {
  /** series key → ts → rows in write order (after merging for dedup modes). */
  readonly data = new Map<string, Map<bigint, Row[]>>();
  constructor(readonly mode: MergeMode) {}

  write(rows: TestRow[]): void {
    for (const r of rows) {
      const tags = Object.entries(r.tags ?? {})
        .filter(([, v]) => v !== null)
        .map(([id, v]) => [Number(id), v as string] as const)
        .sort((a, b) => a[0] - b[0]);
      const key = seriesKeyOf(
        tags.map((x) => x[0]),
        tags.map((x) => x[1]),
      );
      const row: Row = { t1: r.tags?.[1] ?? null, t2: r.tags?.[2] ?? null, ts: r.ts };
      for (const id of FIELD_IDS) row[`f${id}`] = r.fields?.[id] ?? null;
      let series = this.data.get(key);
      if (!series) this.data.set(key, (series = new Map()));
      const existing = series.get(r.ts);
      if (!existing || this.mode === 'append') {
        series.set(r.ts, [...(existing ?? []), row]);
      } else if (this.mode === 'last_row') {
        series.set(r.ts, [row]);
      } else {
        const merged = { ...(existing[0] as Row) };
        for (const id of FIELD_IDS) if (row[`f${id}`] !== null) merged[`f${id}`] = row[`f${id}`] as Cell;
        series.set(r.ts, [merged]);
      }
    }
  }

  scan(lo: bigint, hi: bigint): Row[] {
    const out: Row[] = [];
    for (const key of [...this.data.keys()].sort()) {
      const series = this.data.get(key) as Map<bigint, Row[]>;
      for (const ts of [...series.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (ts >= lo && ts < hi) out.push(...(series.get(ts) as Row[]));
      }
    }
    return out;
  }
}

function randomRows(random: () => number, count: number): TestRow[] {
  const rows: TestRow[] = [];
  // Some fields are left out of a whole batch, so columns appear and disappear between writes.
  const present = FIELD_IDS.filter(() => random() < 0.8);
  for (let i = 0; i < count; i++) {
    const fields: Record<number, Cell> = {};
    for (const id of present) {
      if (random() < 0.2) continue;
      const x = Math.floor(random() * 1000);
      fields[id] = id === 10 ? x / 4 : id === 11 ? BigInt(x - 500) * 1_000_000_007n : id === 12 ? `s${x}` : x % 2 === 0;
    }
    rows.push({
      ts: BigInt(Math.floor(random() * 200)) - 50n,
      tags: { 1: `h${Math.floor(random() * 4)}`, 2: random() < 0.3 ? null : `d${Math.floor(random() * 2)}` },
      fields,
    });
  }
  return rows;
}

for (const mode of ['last_row', 'last_non_null', 'append'] as MergeMode[]) {
  t.test(`random operations agree with the model (${mode})`, async (t) => {
    const random = prng(mode.length * 7919 + Number(process.env.SHARD_MODEL_SEED ?? 0));
    const dir = tempDir(t);
    const config = {
      segment: { blockRows: 16, compactionTrigger: 3 },
      memtable: { flushBytes: 48 * 1024, rejectBytes: 0 },
    };
    let store: ShardStore = await openStore(dir, config);
    const model = new Model(mode);
    let live = dir;
    const check = (what: string) => {
      const lo = BigInt(Math.floor(random() * 120)) - 60n;
      const hi = lo + BigInt(Math.floor(random() * 150));
      t.same(scanRows(store, 1, COLUMNS, { timeMin: lo, timeMax: hi }), model.scan(lo, hi), `${what} [${lo}, ${hi})`);
    };
    for (let step = 0; step < 60; step++) {
      const op = random();
      if (op < 0.55) {
        const rows = randomRows(random, 1 + Math.floor(random() * 40));
        await store.write([payload(1, KINDS, rows, mode)]);
        model.write(rows);
      } else if (op < 0.7) {
        await store.flush();
      } else if (op < 0.8) {
        await store.compact();
      } else if (op < 0.9) {
        await store.close();
        store = await openStore(live, config);
      } else {
        const crashed = path.join(tempDir(t), `crash-${step}`);
        copyDir(live, crashed);
        await store.close();
        live = crashed;
        store = await openStore(live, config);
      }
      check(`step ${step}`);
    }
    t.same(scanRows(store, 1, COLUMNS), model.scan(-(2n ** 63n), 2n ** 63n - 1n), 'full scan at the end');
    t.ok(store.stats().segmentCount >= 1);
    await store.close();
  });
}
