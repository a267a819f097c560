/**
 * A read-only copy of the catalog for the threads that decode ingest bodies. The router stays
 * the only writer of the catalog; a shard holds the copy of one `generation` and plans requests
 * against it, and the router writes their rows only if its catalog is still at that generation.
 */
import { DbError, ErrorCode } from '../errors.js';
import type { DatabaseSchema, TableSchema } from '../types.js';
import type { SchemaView } from './plan.js';

/** The catalog as sent to a shard: every change to the catalog bumps `generation`. */
export interface SchemaSnapshotData {
  generation: number;
  databases: DatabaseSchema[];
  tables: TableSchema[];
}

export class SchemaSnapshot implements SchemaView {
  readonly generation: number;
  private readonly databases = new Map<string, DatabaseSchema>();
  private readonly tables = new Map<string, TableSchema>();

  constructor(data: SchemaSnapshotData) {
    this.generation = data.generation;
    for (const d of data.databases) this.databases.set(d.name, d);
    for (const t of data.tables) this.tables.set(`${t.db}\u0000${t.name}`, t);
  }

  /** Throws 4004 unless the database exists, as the catalog does. */
  requireDatabase(name: string): DatabaseSchema {
    const db = this.databases.get(name);
    if (!db) throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${name}`);
    return db;
  }

  hasDatabase(name: string): boolean {
    return this.databases.has(name);
  }

  getTable(db: string, name: string): TableSchema | undefined {
    return this.tables.get(`${db}\u0000${name}`);
  }
}
