/**
 * The dry run's answer (reference ingest §8): per target table its schema and, per row, each
 * column's key, value, type and semantic type, with GreptimeDB's upper-case type names.
 */
import type { Cell, OutputColumn, RunResult } from '../../pipeline/output.js';
import type { DataType } from '../../shared/types.js';
import { jsonValue } from '../respond/value-text.js';

const TYPE_NAMES: Partial<Record<DataType, string>> = {
  Boolean: 'BOOLEAN',
  Int8: 'INT8',
  Int16: 'INT16',
  Int32: 'INT32',
  Int64: 'INT64',
  UInt8: 'UINT8',
  UInt16: 'UINT16',
  UInt32: 'UINT32',
  UInt64: 'UINT64',
  Float32: 'FLOAT32',
  Float64: 'FLOAT64',
  Binary: 'BINARY',
  String: 'STRING',
  Json: 'JSON',
  TimestampSecond: 'TIMESTAMP_SECOND',
  TimestampMillisecond: 'TIMESTAMP_MILLISECOND',
  TimestampMicrosecond: 'TIMESTAMP_MICROSECOND',
  TimestampNanosecond: 'TIMESTAMP_NANOSECOND',
};

function typeName(type: DataType): string {
  return TYPE_NAMES[type] ?? type.toUpperCase();
}

function cellJson(cell: Cell, c: OutputColumn): string {
  // Json cells are canonical JSON text: the dry run shows the document.
  return jsonValue(cell, c.type);
}

/** The dry-run body as JSON text (timestamps are integers past 2^53, so not JSON.stringify). */
export function dryRunJson(result: RunResult): string {
  const tables = result.tables.map((t) => {
    const schema = t.columns.map(
      (c) =>
        `{"name":${JSON.stringify(c.name)},"data_type":"${typeName(c.type)}","column_type":"${c.semantic}","fulltext":${c.index?.kind === 'fulltext'}}`,
    );
    const rows = t.rows.map(
      (row) =>
        `[${t.columns
          .map(
            (c, i) =>
              `{"key":${JSON.stringify(c.name)},"value":${cellJson(row[i] ?? null, c)},"data_type":"${typeName(c.type)}","semantic_type":"${c.semantic}"}`,
          )
          .join(',')}]`,
    );
    return `{"table_name":${JSON.stringify(`dry_run${t.tableSuffix}`)},"schema":[${schema.join(',')}],"rows":[${rows.join(',')}]}`;
  });
  return `[${tables.join(',')}]`;
}
