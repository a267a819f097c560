/**
 * Builds one `TableInsert` row by row when the column set is not known in advance (trace
 * attribute columns appear as spans are read). Columns keep first-seen order, as GreptimeDB's row
 * writer creates them; a row that does not set a column reads NULL there.
 *
 * Values are collected in plain arrays (undefined = NULL) and turned into typed vectors once at
 * the end, so a column registered late does not need back-filling.
 */
import type { InsertColumn, TableInsert } from '../../../shared/insert.js';
import { type DataType, physicalKindOf, type SemanticType, type Vector } from '../../../shared/types.js';

/** A value in its vector form: bigint for i64/u64, number for f64, boolean, string for str. */
export type CellValue = bigint | number | boolean | string;

interface PendingColumn {
  name: string;
  semantic: SemanticType;
  type: DataType;
  /** One entry per row; undefined = NULL (rows before the column was registered stay sparse). */
  values: Array<CellValue | undefined>;
}

export class InsertBuilder {
  private readonly columns: PendingColumn[] = [];
  private readonly byName = new Map<string, PendingColumn>();
  /** Rows started so far; the current row is `rowCount - 1`. */
  rowCount = 0;

  /** The type of a registered column, or undefined. */
  typeOf(name: string): DataType | undefined {
    return this.byName.get(name)?.type;
  }

  /** Registers a column (idempotent: an existing column keeps its first semantic and type). */
  column(name: string, semantic: SemanticType, type: DataType): void {
    if (this.byName.has(name)) return;
    const column: PendingColumn = { name, semantic, type, values: [] };
    this.columns.push(column);
    this.byName.set(name, column);
  }

  /** Starts a new row; every column reads NULL in it until set. */
  startRow(): void {
    this.rowCount++;
  }

  /** Sets a registered column in the current row (a second set of the same column wins). */
  set(name: string, value: CellValue | null): void {
    const column = this.byName.get(name);
    if (!column) throw new Error(`column ${name} set before it was registered`);
    column.values[this.rowCount - 1] = value ?? undefined;
  }

  /** The insert for `db.table`; the builder must not be used afterwards. */
  toInsert(db: string, table: string): TableInsert {
    const rows = this.rowCount;
    const columns: InsertColumn[] = this.columns.map((c) => ({
      name: c.name,
      semantic: c.semantic,
      type: c.type,
      vector: toVector(c.type, c.values, rows),
    }));
    return { db, table, rowCount: rows, columns };
  }
}

function toVector(type: DataType, values: Array<CellValue | undefined>, rows: number): Vector {
  const kind = physicalKindOf(type);
  if (kind === 'str') {
    const out = new Array<string | null>(rows);
    for (let i = 0; i < rows; i++) {
      const v = values[i];
      out[i] = v === undefined ? null : (v as string);
    }
    return { kind, values: out };
  }
  let valid: Uint8Array | undefined;
  const markNull = (i: number) => {
    if (!valid) valid = new Uint8Array(rows).fill(1);
    valid[i] = 0;
  };
  switch (kind) {
    case 'i64': {
      const out = new BigInt64Array(rows);
      for (let i = 0; i < rows; i++) {
        const v = values[i];
        if (v === undefined) markNull(i);
        else out[i] = v as bigint;
      }
      return { kind, values: out, valid };
    }
    case 'u64': {
      const out = new BigUint64Array(rows);
      for (let i = 0; i < rows; i++) {
        const v = values[i];
        if (v === undefined) markNull(i);
        else out[i] = v as bigint;
      }
      return { kind, values: out, valid };
    }
    case 'f64': {
      const out = new Float64Array(rows);
      for (let i = 0; i < rows; i++) {
        const v = values[i];
        if (v === undefined) markNull(i);
        else out[i] = v as number;
      }
      return { kind, values: out, valid };
    }
    case 'bool': {
      const out = new Uint8Array(rows);
      for (let i = 0; i < rows; i++) {
        const v = values[i];
        if (v === undefined) markNull(i);
        else out[i] = v ? 1 : 0;
      }
      return { kind, values: out, valid };
    }
  }
}
