/**
 * Name resolution: which column an identifier means. A scope lists the columns a FROM clause makes
 * visible; resolving one assigns it a scan slot, so the shard reads only referenced columns.
 *
 * Qualifiers follow DataFusion: `t.a` matches when `t` is the alias, or (without an alias) a
 * suffix of `greptime.db.table`. Error texts quote names as DataFusion does
 * (`No field named "A".`, `Valid fields are s1.tbl.i, s1.tbl.ts.`).
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { ColumnSchema, DataType } from '../../../shared/types.js';
import type { Ident } from '../parse/ast.js';

/** Unquoted identifiers fold to lower case; quoted ones keep their case (GreptimeDB). */
export function normalizeIdent(ident: Ident): string {
  return ident.quote === null ? ident.value.toLowerCase() : ident.value;
}

/** DataFusion's `quote_identifier`: quote unless lower-case letters, digits and `_`. */
export function quoteIfNeeded(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** One column a FROM clause makes visible. */
export interface ScopeColumn {
  name: string;
  type: DataType;
  /** How the column's table is written in names: the alias, or the table name as written. */
  qualifier: string[];
  /** What a qualifier may match: `[alias]`, or `['greptime', db, table]`. */
  path: string[];
  schema: ColumnSchema | null;
}

/** The columns in reach of an expression, with lazily assigned scan slots. */
export class Scope {
  private readonly slots: number[];
  private readonly order: number[] = [];

  constructor(readonly columns: ScopeColumn[]) {
    this.slots = columns.map(() => -1);
  }

  /** Index of the column `parts` names, or -1. Throws on ambiguity. */
  lookup(parts: string[]): number {
    const name = parts[parts.length - 1];
    const qualifier = parts.slice(0, -1);
    let found = -1;
    this.columns.forEach((c, i) => {
      if (c.name !== name) return;
      if (qualifier.length > 0) {
        if (qualifier.length > c.path.length) return;
        const tail = c.path.slice(c.path.length - qualifier.length);
        if (tail.some((p, k) => p !== qualifier[k])) return;
      }
      if (found >= 0) {
        throw new DbError(
          ErrorCode.PlanQuery,
          `Failed to plan SQL: Schema error: Ambiguous reference to unqualified field ${name}`,
        );
      }
      found = i;
    });
    return found;
  }

  /** Like `lookup`, but throws DataFusion's `No field named ...` when absent. */
  resolve(parts: string[]): number {
    const i = this.lookup(parts);
    if (i < 0) throw noFieldError(parts, this.columns);
    return i;
  }

  /** The scan slot of a column, assigned on first use. */
  slotOf(columnIndex: number): number {
    let slot = this.slots[columnIndex] as number;
    if (slot < 0) {
      slot = this.order.length;
      this.slots[columnIndex] = slot;
      this.order.push(columnIndex);
    }
    return slot;
  }

  /** The scan slot of a column if some expression uses it, else -1. */
  peekSlot(columnIndex: number): number {
    return this.slots[columnIndex] ?? -1;
  }

  /** Column indexes in slot order. */
  scannedColumns(): number[] {
    return [...this.order];
  }

  /** `qualifier.name` as it appears inside DataFusion expression names. */
  qualifiedName(columnIndex: number): string {
    const c = this.columns[columnIndex] as ScopeColumn;
    return c.qualifier.length > 0 ? `${c.qualifier.join('.')}.${c.name}` : c.name;
  }
}

/** DataFusion's field-not-found error, listing the valid fields when there are any. */
export function noFieldError(parts: string[], columns: ScopeColumn[]): DbError {
  const shown = parts.map(quoteIfNeeded).join('.');
  let message = `Failed to plan SQL: No field named ${shown}.`;
  if (columns.length > 0) {
    const valid = columns.map((c) => [...c.qualifier, c.name].map(quoteIfNeeded).join('.'));
    message += ` Valid fields are ${valid.join(', ')}.`;
  }
  return new DbError(ErrorCode.PlanQuery, message);
}
