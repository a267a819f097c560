/**
 * The catalog of databases and tables. The router is its only writer: schema changes happen here
 * before any row of a request reaches a shard, so a WAL record never names a table the catalog
 * does not know. Persisted as one JSON document replaced atomically (temp file, fsync, rename,
 * fsync of the directory) on every change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DbError, ErrorCode } from '../shared/errors.js';
import type { SchemaSnapshotData } from '../shared/ingest/schema-snapshot.js';
import type { ColumnSchema, DatabaseSchema, TableSchema } from '../shared/types.js';

const CATALOG_FILE = 'catalog.json';
const CATALOG_VERSION = 1;

/** Databases every server has. `information_schema` is virtual: it has no stored tables. */
export const BUILTIN_DATABASES = ['public', 'greptime_private'] as const;
export const VIRTUAL_DATABASES = ['information_schema'] as const;

interface CatalogDocument {
  version: number;
  shards: number;
  nextTableId: number;
  databases: DatabaseSchema[];
  tables: TableSchema[];
}

function tableKey(db: string, name: string): string {
  return `${db}\u0000${name}`;
}

export class Catalog {
  private readonly file: string;
  private readonly databases = new Map<string, DatabaseSchema>();
  private readonly tables = new Map<string, TableSchema>();
  private nextTableId = 1;
  /**
   * Bumped by every change (each change persists): the shards that decode ingest bodies plan
   * against a snapshot of one generation, and their rows are written only while it is current.
   */
  generation = 0;
  /** Serialises persistence so two concurrent changes never interleave their file writes. */
  private writeChain: Promise<void> = Promise.resolve();
  /**
   * Awaited in turn after each change is on disk, before the change resolves, with the generation
   * that is now on disk (the router tells shards about column indexes and retention this way, and
   * publishes the generation to the shards: src/shared/catalog-generation.ts). They must not throw.
   */
  private readonly changeListeners: Array<(generation: number) => Promise<void>> = [];

  private constructor(
    dir: string,
    readonly shards: number,
  ) {
    this.file = path.join(dir, CATALOG_FILE);
  }

  /**
   * Loads the catalog from `dir`, creating it when absent. A data directory made with a different
   * shard count is refused: its series were placed by that count.
   */
  static async open(dir: string, shards: number): Promise<Catalog> {
    await fs.promises.mkdir(dir, { recursive: true });
    const file = path.join(dir, CATALOG_FILE);
    let doc: CatalogDocument | undefined;
    try {
      doc = JSON.parse(await fs.promises.readFile(file, 'utf8')) as CatalogDocument;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (doc && doc.shards !== shards) {
      throw new DbError(
        ErrorCode.IllegalState,
        `data directory ${dir} was created with storage.shards = ${doc.shards}; it cannot be opened with ${shards}`,
      );
    }
    const catalog = new Catalog(dir, doc?.shards ?? shards);
    if (doc) {
      catalog.nextTableId = doc.nextTableId;
      for (const d of doc.databases) catalog.databases.set(d.name, d);
      for (const t of doc.tables) catalog.tables.set(tableKey(t.db, t.name), t);
    }
    let changed = !doc;
    for (const name of BUILTIN_DATABASES) {
      if (!catalog.databases.has(name)) {
        catalog.databases.set(name, { name, options: {}, createdAtMs: Date.now() });
        changed = true;
      }
    }
    if (changed) await catalog.persist();
    return catalog;
  }

  listDatabases(): DatabaseSchema[] {
    const all = [...this.databases.values()];
    for (const name of VIRTUAL_DATABASES) all.push({ name, options: {}, createdAtMs: 0 });
    return all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  getDatabase(name: string): DatabaseSchema | undefined {
    if ((VIRTUAL_DATABASES as readonly string[]).includes(name)) return { name, options: {}, createdAtMs: 0 };
    return this.databases.get(name);
  }

  /** Throws 4004 unless the database exists. */
  requireDatabase(name: string): DatabaseSchema {
    const db = this.getDatabase(name);
    if (!db) throw new DbError(ErrorCode.DatabaseNotFound, `Database not found: ${name}`);
    return db;
  }

  listTables(db: string): TableSchema[] {
    return [...this.tables.values()].filter((t) => t.db === db).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  allTables(): TableSchema[] {
    return [...this.tables.values()];
  }

  getTable(db: string, name: string): TableSchema | undefined {
    return this.tables.get(tableKey(db, name));
  }

  async createDatabase(name: string, options: Record<string, string>, ifNotExists: boolean): Promise<boolean> {
    if (this.getDatabase(name)) {
      if (ifNotExists) return false;
      throw new DbError(ErrorCode.DatabaseAlreadyExists, `Database already exists: ${name}`);
    }
    this.databases.set(name, { name, options, createdAtMs: Date.now() });
    await this.persist();
    return true;
  }

  /** Replaces a database's options (ALTER DATABASE SET / UNSET). */
  async setDatabaseOptions(name: string, options: Record<string, string>): Promise<void> {
    if ((VIRTUAL_DATABASES as readonly string[]).includes(name)) {
      throw new DbError(ErrorCode.Unsupported, `Cannot alter the system database ${name}`);
    }
    const db = this.requireDatabase(name);
    this.databases.set(name, { ...db, options: { ...options } });
    await this.persist();
  }

  /** Removes the database and returns the tables it held (their data is the caller's to drop). */
  async dropDatabase(name: string): Promise<TableSchema[]> {
    if ((VIRTUAL_DATABASES as readonly string[]).includes(name)) {
      throw new DbError(ErrorCode.Unsupported, `Cannot drop the system database ${name}`);
    }
    this.requireDatabase(name);
    const dropped = this.listTables(name);
    for (const t of dropped) this.tables.delete(tableKey(t.db, t.name));
    this.databases.delete(name);
    await this.persist();
    return dropped;
  }

  /**
   * Adds a table. Column ids are assigned here; callers pass columns without ids.
   * Returns the existing table when it exists and ifNotExists is set.
   */
  async createTable(
    spec: Omit<TableSchema, 'id' | 'columns' | 'nextColumnId' | 'createdAtMs'> & {
      columns: Array<Omit<ColumnSchema, 'id'>>;
    },
    ifNotExists: boolean,
  ): Promise<{ table: TableSchema; created: boolean }> {
    this.requireDatabase(spec.db);
    const existing = this.getTable(spec.db, spec.name);
    if (existing) {
      if (ifNotExists) return { table: existing, created: false };
      throw new DbError(ErrorCode.TableAlreadyExists, `Table already exists: \`greptime.${spec.db}.${spec.name}\``);
    }
    const columns = spec.columns.map((c, i) => ({ ...c, id: i + 1 }));
    const table: TableSchema = {
      ...spec,
      id: this.nextTableId++,
      columns,
      nextColumnId: columns.length + 1,
      createdAtMs: Date.now(),
    };
    this.tables.set(tableKey(table.db, table.name), table);
    await this.persist();
    return { table, created: true };
  }

  /** Appends columns to a table (schema evolution) and persists; returns the new schema. */
  async addColumns(db: string, name: string, columns: Array<Omit<ColumnSchema, 'id'>>): Promise<TableSchema> {
    const table = this.getTable(db, name);
    if (!table) throw new DbError(ErrorCode.TableNotFound, `Table not found: greptime.${db}.${name}`);
    let nextColumnId = table.nextColumnId;
    const added = columns.map((c) => ({ ...c, id: nextColumnId++ }));
    const primaryKey = [...table.primaryKey, ...added.filter((c) => c.semantic === 'TAG').map((c) => c.name)];
    const updated: TableSchema = { ...table, columns: [...table.columns, ...added], primaryKey, nextColumnId };
    this.tables.set(tableKey(db, name), updated);
    await this.persist();
    return updated;
  }

  /**
   * Replaces a table's schema (ALTER TABLE): new name, columns (existing ones keep their ids, new
   * ones get fresh ids), primary key and options, persisted in one atomic write.
   */
  async alterTable(
    db: string,
    name: string,
    altered: {
      name: string;
      columns: Array<Omit<ColumnSchema, 'id'> & { id?: number | undefined }>;
      primaryKey: string[];
      options: Record<string, string>;
    },
  ): Promise<TableSchema> {
    const table = this.getTable(db, name);
    if (!table) throw new DbError(ErrorCode.TableNotFound, `Table not found: greptime.${db}.${name}`);
    if (altered.name !== name && this.getTable(db, altered.name)) {
      throw new DbError(ErrorCode.TableAlreadyExists, `Table already exists, table: greptime.${db}.${altered.name}`);
    }
    let nextColumnId = table.nextColumnId;
    const columns = altered.columns.map((c) => ({ ...c, id: c.id ?? nextColumnId++ }));
    const updated: TableSchema = {
      ...table,
      name: altered.name,
      columns,
      primaryKey: [...altered.primaryKey],
      options: { ...altered.options },
      nextColumnId,
    };
    this.tables.delete(tableKey(db, name));
    this.tables.set(tableKey(db, updated.name), updated);
    await this.persist();
    return updated;
  }

  /**
   * Gives a table a fresh id (TRUNCATE) and returns the old schema: rows stored under the old id
   * no longer belong to any live table, and the caller drops them from the shards.
   */
  async truncateTable(db: string, name: string): Promise<TableSchema | undefined> {
    const table = this.getTable(db, name);
    if (!table) return undefined;
    this.tables.set(tableKey(db, name), { ...table, id: this.nextTableId++ });
    await this.persist();
    return table;
  }

  async dropTable(db: string, name: string): Promise<TableSchema | undefined> {
    const table = this.getTable(db, name);
    if (!table) return undefined;
    this.tables.delete(tableKey(db, name));
    await this.persist();
    return table;
  }

  /**
   * Resolves once every change made so far is on disk. The ingest path awaits it before sending
   * rows to shards, so no WAL record can name a table id that a crash would leave unpersisted
   * (and a later table could then reuse).
   */
  durable(): Promise<void> {
    return this.writeChain;
  }

  /** Ids of tables that once existed and no longer do: shards sweep their data at start-up. */
  deadTableIds(): number[] {
    const live = new Set(this.liveTableIds());
    const dead: number[] = [];
    for (let id = 1; id < this.nextTableId; id++) if (!live.has(id)) dead.push(id);
    return dead;
  }

  /** Ids of every live table: shards use it to sweep data of tables dropped before a crash. */
  liveTableIds(): number[] {
    return [...this.tables.values()].map((t) => t.id);
  }

  /** Every database (virtual ones included) and table, as of `generation`. */
  snapshot(): SchemaSnapshotData {
    return { generation: this.generation, databases: this.listDatabases(), tables: this.allTables() };
  }

  /** Adds a listener awaited after every change (see `changeListeners`). */
  onChange(listener: (generation: number) => Promise<void>): void {
    this.changeListeners.push(listener);
  }

  private async notifyChange(generation: number): Promise<void> {
    for (const listener of this.changeListeners) await listener(generation);
  }

  private persist(): Promise<void> {
    const generation = ++this.generation;
    const doc: CatalogDocument = {
      version: CATALOG_VERSION,
      shards: this.shards,
      nextTableId: this.nextTableId,
      databases: [...this.databases.values()],
      tables: [...this.tables.values()],
    };
    const text = JSON.stringify(doc);
    const next = this.writeChain.then(() => writeFileAtomic(this.file, text)).then(() => this.notifyChange(generation));
    // A failed write must not poison the chain for later changes; the caller sees the failure.
    this.writeChain = next.catch(() => undefined);
    return next;
  }
}

/** Replaces `file` so that a crash leaves either the old or the new content, never a mix. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp`;
  const handle = await fs.promises.open(tmp, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(tmp, file);
  const dir = await fs.promises.open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
