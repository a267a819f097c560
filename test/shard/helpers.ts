/**
 * Test helpers for the shard storage engine: temp directories, configs, payload builders and a
 * scan that returns plain row objects.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ShardStore } from '../../src/shard/store.js';
import { encodeWriteBatch, type MergeMode, seriesFormOf, type TableRows } from '../../src/shared/codec/write-batch.js';
import type { ShardConfig } from '../../src/shared/config.js';
import type { ScanColumn, ScanRequest } from '../../src/shared/scan.js';
import type { PhysicalKind, Vector } from '../../src/shared/types.js';

export const silentLog = pino({ level: 'silent' });

/** A fresh temporary directory, removed when the test ends. */
export function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-shard-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function shardConfig(dir: string, overrides: Partial<Omit<ShardConfig, 'dir'>> = {}): ShardConfig {
  return {
    shardId: 0,
    dir,
    wal: { syncMode: 'fsync', segmentBytes: 64 * 1024 * 1024 },
    memtable: { flushBytes: 256 * 1024 * 1024, rejectBytes: 0 },
    segment: { blockRows: 1024, compactionTrigger: 100 },
    keyRefsPerThread: 1024,
    querySliceMs: 5,
    retentionCheckIntervalMs: 0,
    queryShareUnderWrites: 1,
    logLevel: 'silent',
    ...overrides,
  };
}

export function openStore(dir: string, overrides: Partial<Omit<ShardConfig, 'dir'>> = {}): Promise<ShardStore> {
  return ShardStore.open(shardConfig(dir, overrides), silentLog);
}

/** A cell value in test rows; undefined (absent key) and null both mean NULL. */
export type Cell = number | bigint | boolean | string | null;

/** One row as tests write it: `ts`, tags by id under `tags`, fields by id under `fields`. */
export interface TestRow {
  ts: bigint;
  tags?: Record<number, string | null>;
  fields?: Record<number, Cell>;
}

/** Field kinds of the test schema by column id. */
export type Kinds = Record<number, PhysicalKind>;

function fieldVector(kind: PhysicalKind, cells: Cell[]): Vector {
  const n = cells.length;
  const valid = new Uint8Array(n);
  let nulls = 0;
  let values: Vector['values'];
  switch (kind) {
    case 'f64':
      values = new Float64Array(n);
      break;
    case 'i64':
      values = new BigInt64Array(n);
      break;
    case 'u64':
      values = new BigUint64Array(n);
      break;
    case 'bool':
      values = new Uint8Array(n);
      break;
    case 'str':
      values = new Array<string | null>(n).fill(null);
      break;
  }
  cells.forEach((c, i) => {
    if (c === null || c === undefined) {
      nulls++;
      return;
    }
    valid[i] = 1;
    if (kind === 'bool') (values as Uint8Array)[i] = c ? 1 : 0;
    else (values as unknown as Cell[])[i] = c;
  });
  return { kind, values, valid: nulls > 0 ? valid : undefined };
}

/** Encodes rows of one table as one payload. */
export function payload(tableId: number, kinds: Kinds, rows: TestRow[], mergeMode: MergeMode = 'last_row'): Uint8Array {
  return encodeWriteBatch({ tables: [tableRows(tableId, kinds, rows, mergeMode)] });
}

export function tableRows(
  tableId: number,
  kinds: Kinds,
  rows: TestRow[],
  mergeMode: MergeMode = 'last_row',
): TableRows {
  const tagIds = new Set<number>();
  const fieldIds = new Set<number>();
  for (const r of rows) {
    for (const k of Object.keys(r.tags ?? {})) tagIds.add(Number(k));
    for (const k of Object.keys(r.fields ?? {})) fieldIds.add(Number(k));
  }
  return {
    tableId,
    mergeMode,
    rowCount: rows.length,
    timestamps: BigInt64Array.from(rows.map((r) => r.ts)),
    ...seriesFormOf(
      [...tagIds].map((id) => ({ id, values: rows.map((r) => r.tags?.[id] ?? null) })),
      rows.length,
    ),
    fields: [...fieldIds].map((id) => ({
      id,
      vector: fieldVector(
        kinds[id] ?? 'f64',
        rows.map((r) => r.fields?.[id] ?? null),
      ),
    })),
  };
}

/** Scans and returns rows as objects keyed by `t<id>` (tags), `f<id>` (fields) and `ts`. */
export function scanRows(
  store: ShardStore,
  tableId: number,
  columns: ScanColumn[],
  extra: Partial<Omit<ScanRequest, 'tableId' | 'columns'>> = {},
): Array<Record<string, Cell>> {
  const out: Array<Record<string, Cell>> = [];
  for (const chunk of store.scan({ tableId, columns, ...extra })) {
    for (let i = 0; i < chunk.rowCount; i++) {
      const row: Record<string, Cell> = {};
      columns.forEach((c, k) => {
        const v = chunk.vectors[k] as Vector;
        const name = c.role === 'time' ? 'ts' : `${c.role === 'tag' ? 't' : 'f'}${c.id}`;
        const isNull = (v.valid !== undefined && v.valid[i] === 0) || (Array.isArray(v.values) && v.values[i] === null);
        let value: Cell = isNull ? null : ((v.values as unknown as Cell[])[i] as Cell);
        if (v.kind === 'bool' && value !== null) value = value === 1;
        row[name] = value;
      });
      out.push(row);
    }
  }
  return out;
}

/** Copies a directory tree: the state a crash would leave (no close, no flush). */
export function copyDir(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
}
