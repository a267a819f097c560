/**
 * A small in-memory stand-in for the shard storage engine, for SQL tests that must not depend on
 * disk. It honours the `ScanSource` contract (rows in (series, time) order, duplicates merged
 * last-row-wins, pruning by time range and series filter) and takes the same encoded WriteBatch
 * payloads as `ShardStore.write`.
 */
import { decodeWriteBatch } from '../../../../src/shared/codec/write-batch.js';
import type { ScanChunk, ScanRequest, ScanSource } from '../../../../src/shared/scan.js';
import { allocValues, type PhysicalKind, type Vector } from '../../../../src/shared/types.js';

type Cell = number | bigint | boolean | string | null;

interface Series {
  key: string;
  tags: Map<number, string>;
  /** timestamp → (field id → value) */
  rows: Map<bigint, Map<number, Cell>>;
}

function readCell(v: Vector, i: number): Cell {
  if (v.valid && v.valid[i] === 0) return null;
  if (v.kind === 'bool') return (v.values as Uint8Array)[i] === 1;
  return (v.values as ArrayLike<Cell>)[i] ?? null;
}

export class MemoryStore implements ScanSource {
  private readonly tables = new Map<number, Map<string, Series>>();
  scans: ScanRequest[] = [];

  async write(payloads: Uint8Array[]): Promise<void> {
    for (const payload of payloads) {
      for (const t of decodeWriteBatch(payload).tables) {
        let table = this.tables.get(t.tableId);
        if (!table) this.tables.set(t.tableId, (table = new Map()));
        for (let r = 0; r < t.rowCount; r++) {
          const tags = new Map<number, string>();
          const tuple = t.seriesTags[t.rowSeries[r] as number] ?? [];
          t.tagIds.forEach((id, i) => {
            const v = tuple[i];
            if (v !== null && v !== undefined) tags.set(id, v);
          });
          const key = [...tags.entries()]
            .sort((a, b) => a[0] - b[0])
            .map(([id, v]) => `${id}=${v}`)
            .join('\u0000');
          let series = table.get(key);
          if (!series) table.set(key, (series = { key, tags, rows: new Map() }));
          const ts = t.timestamps[r] as bigint;
          const row = series.rows.get(ts) ?? new Map<number, Cell>();
          for (const f of t.fields) row.set(f.id, readCell(f.vector, r));
          series.rows.set(ts, row);
        }
      }
    }
  }

  dropTables(ids: number[]): void {
    for (const id of ids) this.tables.delete(id);
  }

  *scan(request: ScanRequest): Iterable<ScanChunk> {
    this.scans.push(request);
    const table = this.tables.get(request.tableId);
    if (!table) return;
    const series = [...table.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const s of series) {
      if (request.seriesFilter && !request.seriesFilter(s.tags)) continue;
      const times = [...s.rows.keys()]
        .filter(
          (ts) =>
            (request.timeMin === undefined || ts >= request.timeMin) &&
            (request.timeMax === undefined || ts < request.timeMax),
        )
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      if (times.length === 0) continue;
      const vectors = request.columns.map((c) => {
        const kind: PhysicalKind = c.kind;
        const values = allocValues(kind, times.length);
        const valid = new Uint8Array(times.length).fill(1);
        let anyNull = false;
        times.forEach((ts, i) => {
          let v: Cell;
          if (c.role === 'time') v = ts;
          else if (c.role === 'tag') v = s.tags.get(c.id) ?? null;
          else v = s.rows.get(ts)?.get(c.id) ?? null;
          if (v === null) {
            valid[i] = 0;
            anyNull = true;
          } else if (kind === 'bool') (values as Uint8Array)[i] = v ? 1 : 0;
          else (values as Array<Cell>)[i] = v;
        });
        return { kind, values, valid: anyNull ? valid : undefined } as Vector;
      });
      yield { rowCount: times.length, vectors };
    }
  }
}
