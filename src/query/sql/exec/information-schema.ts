/**
 * `information_schema`: read-only views of the catalog (`schemata`, `tables`, `columns`), built
 * in the router from `SqlEnv` on every query and queried like any materialised relation. Column
 * names and order follow GreptimeDB's for the columns given; its storage statistics columns are
 * left out.
 */
import type { DataType, TableSchema } from '../../../shared/types.js';
import { parseExpression } from '../parse/parser.js';
import type { SqlEnv } from '../plan/env.js';
import { NUMBERS_TABLE, numbersTableListed } from '../plan/numbers-table.js';
import type { Relation } from '../plan/relation.js';
import { sqlNameOf } from '../types/type-names.js';
import type { Value } from '../types/values.js';

/** The database name of the virtual schema. */
export const INFORMATION_SCHEMA = 'information_schema';

/** Tables of `information_schema`, in name order. */
export const INFORMATION_SCHEMA_TABLES = ['columns', 'schemata', 'tables'];

type Columns = Array<[string, DataType]>;

function relation(db: string, table: string, columns: Columns, rows: Value[][]): Relation {
  const path = ['greptime', db, table];
  return {
    columns: columns.map(([name, type]) => ({ name, type, qualifier: [table], path })),
    values: columns.map((_, c) => rows.map((r) => r[c] ?? null)),
    rowCount: rows.length,
  };
}

function allTables(env: SqlEnv): TableSchema[] {
  const out: TableSchema[] = [];
  for (const db of env.listDatabases()) {
    if (db.name === INFORMATION_SCHEMA) continue;
    out.push(...env.listTables(db.name));
    if (numbersTableListed(db.name) && !env.getTable(db.name, 'numbers')) out.push(NUMBERS_TABLE);
  }
  return out;
}

function databases(env: SqlEnv): string[] {
  const names = new Set(env.listDatabases().map((d) => d.name));
  names.add(INFORMATION_SCHEMA);
  return [...names].sort();
}

/** The rows of `information_schema.<table>`, or null when there is no such view. */
export async function informationSchemaRelation(table: string, env: SqlEnv): Promise<Relation | null> {
  switch (table) {
    case 'schemata':
      return relation(
        INFORMATION_SCHEMA,
        table,
        [
          ['catalog_name', 'String'],
          ['schema_name', 'String'],
          ['default_character_set_name', 'String'],
          ['default_collation_name', 'String'],
          ['sql_path', 'String'],
          ['options', 'String'],
        ],
        databases(env).map((name) => {
          const options = env.getDatabase(name)?.options ?? {};
          const text = Object.entries(options)
            .map(([k, v]) => `${k}='${v}'`)
            .join(' ');
          return ['greptime', name, 'utf8', 'utf8_bin', null, text];
        }),
      );
    case 'tables': {
      // data_length: the table's live segment bytes over all shards (memtables and WAL aside).
      const sizes = (await env.tableSegmentBytes?.()) ?? new Map<number, number>();
      const rows: Value[][] = [];
      for (const name of INFORMATION_SCHEMA_TABLES) {
        rows.push(['greptime', INFORMATION_SCHEMA, name, 'LOCAL TEMPORARY', null, 0n, null]);
      }
      for (const t of allTables(env)) {
        const temporary = t.id < 0;
        rows.push([
          'greptime',
          t.db,
          t.name,
          temporary ? 'TEMPORARY' : 'BASE TABLE',
          temporary ? null : BigInt(t.id),
          BigInt(sizes.get(t.id) ?? 0),
          temporary ? null : 'mito',
        ]);
      }
      return relation(
        INFORMATION_SCHEMA,
        table,
        [
          ['table_catalog', 'String'],
          ['table_schema', 'String'],
          ['table_name', 'String'],
          ['table_type', 'String'],
          ['table_id', 'UInt32'],
          ['data_length', 'UInt64'],
          ['engine', 'String'],
        ],
        rows.map((r) => r.map((v, i) => (i === 4 && typeof v === 'bigint' ? Number(v) : v))),
      );
    }
    case 'columns': {
      const rows: Value[][] = [];
      for (const t of allTables(env)) {
        t.columns.forEach((c, i) => {
          const key = c.semantic === 'TAG' ? 'PRI' : c.semantic === 'TIMESTAMP' ? 'TIME INDEX' : '';
          rows.push([
            'greptime',
            t.db,
            t.name,
            c.name,
            BigInt(i + 1),
            sqlNameOf(c.type).toLowerCase(),
            c.semantic,
            c.defaultSql === undefined ? null : defaultDisplay(c.defaultSql),
            c.nullable ? 'Yes' : 'No',
            sqlNameOf(c.type).toLowerCase(),
            key,
            c.type,
          ]);
        });
      }
      return relation(
        INFORMATION_SCHEMA,
        table,
        [
          ['table_catalog', 'String'],
          ['table_schema', 'String'],
          ['table_name', 'String'],
          ['column_name', 'String'],
          ['ordinal_position', 'Int64'],
          ['data_type', 'String'],
          ['semantic_type', 'String'],
          ['column_default', 'String'],
          ['is_nullable', 'String'],
          ['column_type', 'String'],
          ['column_key', 'String'],
          ['greptime_data_type', 'String'],
        ],
        rows,
      );
    }
    default:
      return null;
  }
}

/** How DESCRIBE shows a default: text literals without quotes, anything else as SQL. */
export function defaultDisplay(defaultSql: string | undefined): string {
  if (defaultSql === undefined) return '';
  try {
    const e = parseExpression(defaultSql);
    if (e.kind === 'string') return e.value;
  } catch {
    // Stored defaults always parse; show the text as is if one somehow does not.
  }
  return defaultSql;
}
