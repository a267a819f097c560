/**
 * The shared ingest path: every protocol's `TableInsert`s come through here. In order:
 * reconcile with the catalog (validate everything, then create tables / add columns), split rows
 * by series to their shards, encode one WriteBatch per shard, and wait until every shard has made
 * its part durable. Nothing of a request is written when validation fails.
 */
import {
  DELETE_MARK_COLUMN_ID,
  encodeWriteBatch,
  type MergeMode,
  seriesFormOf,
  type TableRows,
} from '../../shared/codec/write-batch.js';
import { DbError, ErrorCode, InvalidArgument } from '../../shared/errors.js';
import type { InsertColumn, InsertOptions, StorageKeyHolder, TableInsert } from '../../shared/insert.js';
import { keyOrderOf, seriesKeyOfTuple } from '../../shared/series-key.js';
import {
  type ColumnSchema,
  type DataType,
  NANOS_PER_UNIT,
  type TableSchema,
  timeUnitOf,
  type Vector,
} from '../../shared/types.js';
import { yieldToEventLoop } from '../../shared/yield.js';
import type { Catalog } from '../catalog.js';
import { shardOfSeries, tableHash } from '../partition.js';
import type { ShardCluster } from '../shards.js';

/** Type codes GreptimeDB prints in datatype errors (its gRPC ColumnDataType numbering). */
const TYPE_CODES: Partial<Record<DataType, string>> = {
  Boolean: 'BOOLEAN(0)',
  Int8: 'INT8(1)',
  Int16: 'INT16(2)',
  Int32: 'INT32(3)',
  Int64: 'INT64(4)',
  UInt8: 'UINT8(5)',
  UInt16: 'UINT16(6)',
  UInt32: 'UINT32(7)',
  UInt64: 'UINT64(8)',
  Float32: 'FLOAT32(9)',
  Float64: 'FLOAT64(10)',
  Binary: 'BINARY(11)',
  String: 'STRING(12)',
  Date: 'DATE(13)',
  TimestampSecond: 'TIMESTAMP_SECOND(15)',
  TimestampMillisecond: 'TIMESTAMP_MILLISECOND(16)',
  TimestampMicrosecond: 'TIMESTAMP_MICROSECOND(17)',
  TimestampNanosecond: 'TIMESTAMP_NANOSECOND(18)',
};

/** What a table's options say about duplicate handling. */
export function mergeModeOf(table: TableSchema): MergeMode {
  if (table.options.append_mode === 'true') return 'append';
  return table.options.merge_mode === 'last_non_null' ? 'last_non_null' : 'last_row';
}

interface PlannedInsert {
  insert: TableInsert;
  /** Set when the table must be created. */
  create?: { columns: Array<Omit<ColumnSchema, 'id'>>; timeIndex: string; primaryKey: string[] } | undefined;
  /** Columns to add to an existing table. */
  add: Array<Omit<ColumnSchema, 'id'>>;
}

export class IngestPipeline {
  constructor(
    private readonly catalog: Catalog,
    private readonly cluster: ShardCluster,
  ) {}

  /** How many shards rows are partitioned over (parsers that place series themselves need it). */
  get shardCount(): number {
    return this.cluster.count;
  }

  /**
   * Writes the inserts durably. Returns the number of rows written. Throws before writing
   * anything when any insert conflicts with the catalog.
   */
  async write(inserts: TableInsert[], options: InsertOptions): Promise<number> {
    const plans = inserts.filter((i) => i.rowCount > 0).map((i) => this.plan(i, options));
    for (const p of plans) await this.applySchemaChanges(p, options);
    await this.catalog.durable();

    const perShard: TableRows[][] = Array.from({ length: this.cluster.count }, () => []);
    let rows = 0;
    for (const p of plans) {
      const table = this.catalog.getTable(p.insert.db, p.insert.table) as TableSchema;
      // Splitting is the largest synchronous step after parsing; give the loop a turn first.
      await yieldToEventLoop();
      const split = splitByShard(p.insert, table, this.cluster.count);
      for (let s = 0; s < split.length; s++) {
        const part = split[s];
        if (part) perShard[s]?.push(part);
      }
      rows += p.insert.rowCount;
    }
    await yieldToEventLoop();
    const payloads: (Uint8Array | null)[] = perShard.map((tables) => {
      if (tables.length === 0) return null;
      const encoded = encodeWriteBatch({ tables });
      // Own buffer per payload: it is transferred to the worker, and msgpackr reuses its buffers.
      const payload = new Uint8Array(encoded.byteLength);
      payload.set(encoded);
      return payload;
    });
    // No await from here until every part is queued: the room checked is the room used.
    this.cluster.checkQueueRoom(payloads.map((p) => p?.byteLength ?? 0));
    const writes: Promise<void>[] = [];
    for (let s = 0; s < payloads.length; s++) {
      const payload = payloads[s];
      if (payload) writes.push(this.cluster.write(s, payload));
    }
    await Promise.all(writes);
    return rows;
  }

  /** Validates one insert against the catalog and says what must change; changes nothing. */
  private plan(insert: TableInsert, options: InsertOptions): PlannedInsert {
    this.catalog.requireDatabase(insert.db);
    const timeColumns = insert.columns.filter((c) => c.semantic === 'TIMESTAMP');
    if (timeColumns.length !== 1) {
      throw new InvalidArgument(`Insert into ${insert.table} must carry exactly one time index column`);
    }
    const seen = new Set<string>();
    for (const c of insert.columns) {
      if (seen.has(c.name)) throw new InvalidArgument(`Duplicate column ${c.name} in insert into ${insert.table}`);
      seen.add(c.name);
    }
    const table = this.catalog.getTable(insert.db, insert.table);
    if (!table) {
      if (!options.autoCreateTable) {
        throw new DbError(ErrorCode.TableNotFound, `Table not found: greptime.${insert.db}.${insert.table}`);
      }
      const columns = insert.columns.map((c) => ({
        name: c.name,
        type: c.type,
        semantic: c.semantic,
        nullable: c.semantic !== 'TIMESTAMP',
      }));
      const tags = insert.columns.filter((c) => c.semantic === 'TAG').map((c) => c.name);
      return {
        insert,
        create: { columns, timeIndex: (timeColumns[0] as InsertColumn).name, primaryKey: tags },
        add: [],
      };
    }
    const add: Array<Omit<ColumnSchema, 'id'>> = [];
    for (const c of insert.columns) {
      if (c.semantic === 'TIMESTAMP') {
        const index = table.columns.find((col) => col.name === table.timeIndex) as ColumnSchema;
        if (timeUnitOf(index.type) === null || timeUnitOf(c.type) === null) {
          throw new InvalidArgument(`Time index of ${table.name} is not a timestamp`);
        }
        continue;
      }
      const existing = table.columns.find((col) => col.name === c.name);
      if (!existing) {
        if (!options.autoAddColumns) {
          throw new DbError(ErrorCode.TableColumnNotFound, `Column ${c.name} not found in table ${table.name}`);
        }
        add.push({ name: c.name, type: c.type, semantic: c.semantic, nullable: true });
        continue;
      }
      if (existing.name === table.timeIndex) {
        throw new InvalidArgument(
          `Column ${c.name} is the time index of ${table.name} and cannot take values of ${c.type}`,
        );
      }
      if (existing.type !== c.type) {
        throw new InvalidArgument(
          `column ${c.name} expect type ${existing.type}, given: ${TYPE_CODES[c.type] ?? c.type}`,
        );
      }
      if (existing.semantic !== c.semantic) {
        throw new InvalidArgument(
          `column ${c.name} is a ${existing.semantic.toLowerCase()} of ${table.name}, given as a ${c.semantic.toLowerCase()}`,
        );
      }
    }
    return { insert, add };
  }

  private async applySchemaChanges(p: PlannedInsert, options: InsertOptions): Promise<void> {
    const { db, table } = p.insert;
    if (p.create) {
      // Another request may have created it since plan(); re-validate against what is there now.
      if (this.catalog.getTable(db, table)) {
        const again = this.plan(p.insert, options);
        if (again.add.length > 0) await this.catalog.addColumns(db, table, again.add);
        return;
      }
      const createOptions: Record<string, string> = { ...(options.createOptions ?? {}) };
      if (options.createMergeMode === 'append') createOptions.append_mode = 'true';
      else createOptions.merge_mode = options.createMergeMode;
      await this.catalog.createTable(
        {
          db,
          name: table,
          columns: p.create.columns,
          timeIndex: p.create.timeIndex,
          primaryKey: p.create.primaryKey,
          options: createOptions,
        },
        true,
      );
      return;
    }
    if (p.add.length > 0) {
      const current = this.catalog.getTable(db, table) as TableSchema;
      const missing = p.add.filter((c) => !current.columns.some((e) => e.name === c.name));
      for (const c of p.add) {
        const e = current.columns.find((x) => x.name === c.name);
        if (e && e.type !== c.type) {
          throw new InvalidArgument(`column ${c.name} expect type ${e.type}, given: ${TYPE_CODES[c.type] ?? c.type}`);
        }
      }
      if (missing.length > 0) await this.catalog.addColumns(db, table, missing);
    }
  }
}

/** Scales a timestamp vector from one unit to another, exactly (BigInt). */
function convertTimestamps(values: BigInt64Array, from: DataType, to: DataType): BigInt64Array {
  const fromUnit = timeUnitOf(from);
  const toUnit = timeUnitOf(to);
  if (!fromUnit || !toUnit || fromUnit === toUnit) return values;
  const fromNs = NANOS_PER_UNIT[fromUnit];
  const toNs = NANOS_PER_UNIT[toUnit];
  const out = new BigInt64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = ((values[i] as bigint) * fromNs) / toNs;
  return out;
}

/** Picks the rows of `v` at `rows` into a new vector. */
function gather(v: Vector, rows: Uint32Array, n: number): Vector {
  let values: Vector['values'];
  if (v.kind === 'str') {
    const src = v.values as Array<string | null>;
    const out = new Array<string | null>(n);
    for (let i = 0; i < n; i++) out[i] = src[rows[i] as number] ?? null;
    values = out;
  } else {
    const src = v.values as Float64Array;
    const out = new (src.constructor as Float64ArrayConstructor)(n);
    for (let i = 0; i < n; i++) out[i] = src[rows[i] as number] as number;
    values = out as Vector['values'];
  }
  let valid: Uint8Array | undefined;
  if (v.valid) {
    valid = new Uint8Array(n);
    for (let i = 0; i < n; i++) valid[i] = v.valid[rows[i] as number] as number;
  }
  return { kind: v.kind, values, valid };
}

/**
 * The series of the rows: each row's series number and each series' tag tuple (in `tagVectors`
 * order). Uses the parser's hint when the insert has one, so no strings are compared; otherwise
 * `seriesFormOf` finds the series from the tag values.
 */
function seriesOfRows(
  insert: TableInsert,
  tagVectors: Array<Array<string | null>>,
): { rowSeries: Uint32Array; tuples: Array<Array<string | null>> } {
  const n = insert.rowCount;
  const hint = insert.rowSeries;
  if (!hint || hint.length !== n) {
    const form = seriesFormOf(
      tagVectors.map((values, id) => ({ id, values })),
      n,
    );
    return { rowSeries: form.rowSeries, tuples: form.seriesTags };
  }
  const tuples: Array<Array<string | null>> = [];
  for (let r = 0; r < n; r++) {
    const k = hint[r] as number;
    if (tuples[k] === undefined) tuples[k] = tagVectors.map((v) => v[r] ?? null);
  }
  return { rowSeries: hint, tuples };
}

/**
 * The storage key of each series (see src/shared/series-key.ts), from its holder while the table
 * and its tag column ids are those the key was built for; otherwise built and kept there.
 */
function storageKeysOf(
  holders: StorageKeyHolder[],
  tuples: Array<Array<string | null>>,
  tagIds: number[],
  tableId: number,
): string[] {
  const idsKey = tagIds.join(',');
  const order = keyOrderOf(tagIds);
  const keys = new Array<string>(tuples.length);
  for (let k = 0; k < tuples.length; k++) {
    const holder = holders[k] as StorageKeyHolder;
    const cached = holder.storageKey;
    if (cached !== undefined && cached.tableId === tableId && cached.idsKey === idsKey) {
      keys[k] = cached.key;
      continue;
    }
    const key = seriesKeyOfTuple(order, tuples[k] as Array<string | null>);
    holder.storageKey = { tableId, idsKey, key };
    keys[k] = key;
  }
  return keys;
}

/**
 * Splits one table's rows into per-shard `TableRows`, keyed by catalog column ids. A row's shard
 * is decided by its series (the table plus its non-null tags, sorted by tag name), computed once
 * per series; tags are sent once per series (see `TableRows`).
 */
function splitByShard(insert: TableInsert, table: TableSchema, shards: number): Array<TableRows | undefined> {
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const timeColumn = insert.columns.find((c) => c.semantic === 'TIMESTAMP') as InsertColumn;
  const indexColumn = byName.get(table.timeIndex) as ColumnSchema;
  const timestamps = convertTimestamps(timeColumn.vector.values as BigInt64Array, timeColumn.type, indexColumn.type);
  if (timeColumn.vector.valid?.includes(0)) throw new InvalidArgument(`Time index ${table.timeIndex} cannot be null`);

  const tagColumns = insert.columns
    .filter((c) => c.semantic === 'TAG')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const fieldColumns = insert.columns.filter((c) => c.semantic === 'FIELD');
  const tagNames = tagColumns.map((c) => c.name);
  const tagIds = tagColumns.map((c) => (byName.get(c.name) as ColumnSchema).id);
  const tagVectors = tagColumns.map((c) => c.vector.values as Array<string | null>);
  const fields = insert.deletes
    ? [
        {
          id: DELETE_MARK_COLUMN_ID,
          vector: { kind: 'bool', values: new Uint8Array(insert.rowCount).fill(1) } as Vector,
        },
      ]
    : fieldColumns.map((c) => ({ id: (byName.get(c.name) as ColumnSchema).id, vector: c.vector }));
  const base = tableHash(insert.db, insert.table);
  const mergeMode = mergeModeOf(table);

  const n = insert.rowCount;
  const resolved = insert.series && insert.rowSeries?.length === n ? insert.series : undefined;
  const { rowSeries, tuples } = resolved
    ? { rowSeries: insert.rowSeries as Uint32Array, tuples: resolved.tuples }
    : seriesOfRows(insert, tagVectors);
  const seriesCount = tuples.length;
  const tupleOf = (k: number): Array<string | null> => tuples[k] as Array<string | null>;
  let seriesShard: Uint16Array = new Uint16Array(seriesCount);
  if (resolved) seriesShard = resolved.shards;
  else if (shards > 1) {
    for (let k = 0; k < seriesCount; k++) seriesShard[k] = shardOfSeries(base, tagNames, tupleOf(k), shards);
  }
  const counts = new Uint32Array(shards);
  for (let r = 0; r < n; r++) {
    const s = seriesShard[rowSeries[r] as number] as number;
    counts[s] = (counts[s] as number) + 1;
  }

  const keys = resolved?.keyHolders ? storageKeysOf(resolved.keyHolders, tuples, tagIds, table.id) : undefined;
  const out: Array<TableRows | undefined> = new Array(shards);
  for (let s = 0; s < shards; s++) {
    const count = counts[s] as number;
    if (count === 0) continue;
    if (count === n) {
      out[s] = {
        tableId: table.id,
        mergeMode,
        rowCount: n,
        timestamps,
        tagIds,
        seriesTags: keys ? [] : tuples,
        seriesKeys: keys,
        rowSeries,
        fields,
      };
      continue;
    }
    const rows = new Uint32Array(count);
    const localSeries = new Uint32Array(count);
    const localIndex = new Int32Array(seriesCount).fill(-1);
    const seriesTags: Array<Array<string | null>> = [];
    const seriesKeys: string[] = [];
    const ts = new BigInt64Array(count);
    let k = 0;
    for (let r = 0; r < n; r++) {
      const g = rowSeries[r] as number;
      if (seriesShard[g] !== s) continue;
      let local = localIndex[g] as number;
      if (local < 0) {
        local = keys ? seriesKeys.length : seriesTags.length;
        localIndex[g] = local;
        if (keys) seriesKeys.push(keys[g] as string);
        else seriesTags.push(tupleOf(g));
      }
      rows[k] = r;
      localSeries[k] = local;
      ts[k] = timestamps[r] as bigint;
      k++;
    }
    out[s] = {
      tableId: table.id,
      mergeMode,
      rowCount: count,
      timestamps: ts,
      tagIds,
      seriesTags,
      seriesKeys: keys ? seriesKeys : undefined,
      rowSeries: localSeries,
      fields: fields.map((f) => ({ id: f.id, vector: gather(f.vector, rows, count) })),
    };
  }
  return out;
}
