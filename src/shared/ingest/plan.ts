/**
 * Validation of an insert against the schema, shared by the router (its catalog) and the shard
 * workers that decode ingest bodies (a snapshot of it): both must reject the same requests with
 * the same errors, and agree on what a request would create.
 */

import type { MergeMode } from '../codec/write-batch.js';
import { DbError, ErrorCode, InvalidArgument } from '../errors.js';
import type { InsertColumn, InsertOptions, TableInsert } from '../insert.js';
import { type ColumnSchema, type DatabaseSchema, type DataType, type TableSchema, timeUnitOf } from '../types.js';

/** What planning reads of the schema: the router's catalog, or a shard's snapshot of it. */
export interface SchemaView {
  requireDatabase(name: string): DatabaseSchema;
  getTable(db: string, name: string): TableSchema | undefined;
}

/** Type codes GreptimeDB prints in datatype errors (its gRPC ColumnDataType numbering). */
export const TYPE_CODES: Partial<Record<DataType, string>> = {
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

/** What one insert needs of the schema before its rows can be written. */
export interface PlannedInsert {
  insert: TableInsert;
  /** Set when the table must be created. */
  create?: { columns: Array<Omit<ColumnSchema, 'id'>>; timeIndex: string; primaryKey: string[] } | undefined;
  /** Columns to add to an existing table. */
  add: Array<Omit<ColumnSchema, 'id'>>;
}

/** True when the insert can be written against the schema as it is. */
export function needsNoChange(p: PlannedInsert): boolean {
  return p.create === undefined && p.add.length === 0;
}

/** Validates one insert against the schema and says what must change; changes nothing. */
export function planInsert(schema: SchemaView, insert: TableInsert, options: InsertOptions): PlannedInsert {
  schema.requireDatabase(insert.db);
  const timeColumns = insert.columns.filter((c) => c.semantic === 'TIMESTAMP');
  if (timeColumns.length !== 1) {
    throw new InvalidArgument(`Insert into ${insert.table} must carry exactly one time index column`);
  }
  const seen = new Set<string>();
  for (const c of insert.columns) {
    if (seen.has(c.name)) throw new InvalidArgument(`Duplicate column ${c.name} in insert into ${insert.table}`);
    seen.add(c.name);
  }
  const table = schema.getTable(insert.db, insert.table);
  if (!table) {
    if (!options.autoCreateTable) {
      if (options.autoCreateHintDisabled) {
        throw new InvalidArgument(
          `Table \`${insert.table}\` does not exist, and \`auto_create_table\` hint is disabled`,
        );
      }
      throw new DbError(ErrorCode.TableNotFound, `Table not found: greptime.${insert.db}.${insert.table}`);
    }
    const columns = insert.columns.map((c) => ({
      name: c.name,
      type: c.type,
      semantic: c.semantic,
      nullable: c.semantic !== 'TIMESTAMP',
      ...(c.index ? { index: c.index } : {}),
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
      add.push({
        name: c.name,
        type: c.type,
        semantic: c.semantic,
        nullable: true,
        ...(c.index ? { index: c.index } : {}),
      });
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
