/** The catalog browser: databases, their tables and each table's columns, keys and size. */
import type { SQLNamespace } from '@codemirror/lang-sql';
import { sql, sqlObjects } from './api';
import { button, el, errorBox, formatBytes, replaceChildren } from './dom';

export interface ColumnInfo {
  name: string;
  type: string;
  semantic: string;
  nullable: boolean;
}

/** Database → table → columns, in the server's order. */
export type Catalog = Map<string, Map<string, ColumnInfo[]>>;

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export async function loadCatalog(): Promise<Catalog> {
  const [schemata, tableRows, columns] = await Promise.all([
    sqlObjects('SELECT schema_name FROM information_schema.schemata ORDER BY schema_name'),
    // The columns view leaves out information_schema's own tables; this one lists them.
    sqlObjects('SELECT table_schema, table_name FROM information_schema.tables ORDER BY table_schema, table_name'),
    sqlObjects(
      'SELECT table_schema, table_name, column_name, data_type, semantic_type, is_nullable ' +
        'FROM information_schema.columns ORDER BY table_schema, table_name, ordinal_position',
    ),
  ]);
  const catalog: Catalog = new Map();
  for (const s of schemata) catalog.set(String(s.schema_name), new Map());
  for (const r of tableRows) catalog.get(String(r.table_schema))?.set(String(r.table_name), []);
  for (const c of columns) {
    const db = String(c.table_schema);
    const table = String(c.table_name);
    let tables = catalog.get(db);
    if (!tables) catalog.set(db, (tables = new Map()));
    let cols = tables.get(table);
    if (!cols) tables.set(table, (cols = []));
    cols.push({
      name: String(c.column_name),
      type: String(c.data_type),
      semantic: String(c.semantic_type),
      nullable: c.is_nullable === 'Yes',
    });
  }
  return catalog;
}

/** The catalog as SQL completion wants it: `db.table` and, for the default database, `table`. */
export function completionSchema(catalog: Catalog): SQLNamespace {
  const schema: Record<string, string[]> = {};
  for (const [db, tables] of catalog) {
    for (const [table, cols] of tables) {
      const names = cols.map((c) => c.name);
      schema[`${db}.${table}`] = names;
      if (db === 'public') schema[table] = names;
    }
  }
  return schema;
}

export function tableQuery(db: string, table: string, columns: ColumnInfo[]): string {
  const time = columns.find((c) => c.semantic === 'TIMESTAMP');
  const order = time ? ` ORDER BY ${quoteIdent(time.name)} DESC` : '';
  return `SELECT * FROM ${quoteIdent(db)}.${quoteIdent(table)}${order} LIMIT 100`;
}

export function createCatalogPage(host: HTMLElement, openQuery: (query: string) => void): { refresh(): Promise<void> } {
  const tree = el('nav', { class: 'catalog-tree', 'aria-label': 'Databases and tables' });
  const detail = el('div', { class: 'catalog-detail', 'aria-live': 'polite' });
  replaceChildren(host, el('h1', {}, 'Catalog'), el('div', { class: 'catalog' }, tree, detail));

  async function showTable(db: string, table: string, columns: ColumnInfo[]): Promise<void> {
    const time = columns.find((c) => c.semantic === 'TIMESTAMP');
    const tags = columns.filter((c) => c.semantic === 'TAG');
    const rowCount = el('dd', {}, '…');
    const indexes = el('dd', {}, '…');
    const diskSize = el('dd', { 'data-testid': 'disk-size' }, '…');
    const ddl = el('pre', { class: 'ddl' });
    replaceChildren(
      detail,
      el('h2', {}, `${db}.${table}`),
      button('Query this table', () => openQuery(tableQuery(db, table, columns)), { class: 'primary' }),
      el(
        'dl',
        { class: 'facts' },
        el('dt', {}, 'Time index'),
        el('dd', {}, time?.name ?? 'none'),
        el('dt', {}, 'Tags'),
        el('dd', {}, tags.map((c) => c.name).join(', ') || 'none'),
        el('dt', {}, 'Rows'),
        rowCount,
        el('dt', {}, 'Indexes'),
        indexes,
        el('dt', {}, 'On-disk size'),
        diskSize,
      ),
      el(
        'table',
        { class: 'results columns' },
        el('caption', {}, 'Columns'),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['Name', 'Type', 'Semantic type', 'Nullable'].map((h) => el('th', { scope: 'col' }, h)),
          ),
        ),
        el(
          'tbody',
          {},
          columns.map((c) =>
            el(
              'tr',
              {},
              el('td', {}, c.name),
              el('td', {}, c.type),
              el('td', {}, c.semantic),
              el('td', {}, c.nullable ? 'yes' : 'no'),
            ),
          ),
        ),
      ),
      el('h3', {}, 'Definition'),
      ddl,
    );
    if (db === 'information_schema') {
      diskSize.textContent = 'none (virtual)';
      rowCount.textContent = 'virtual';
      indexes.textContent = 'none';
      return;
    }
    const name = `${quoteIdent(db)}.${quoteIdent(table)}`;
    try {
      const count = await sql(`SELECT count(*) FROM ${name}`);
      rowCount.textContent = String(count.records?.rows[0]?.[0] ?? '?');
      const create = await sql(`SHOW CREATE TABLE ${name}`);
      const text = String(create.records?.rows[0]?.[1] ?? '');
      ddl.textContent = text;
      const found = text.split('\n').filter((l) => /INDEX|PRIMARY KEY/i.test(l) && !/TIME INDEX/i.test(l));
      indexes.textContent = found.map((l) => l.trim().replace(/,$/, '')).join('; ') || 'none';
      diskSize.textContent = await segmentBytesOf(db, table);
    } catch (err) {
      detail.appendChild(errorBox(err instanceof Error ? err.message : String(err)));
    }
  }

  async function refresh(): Promise<void> {
    try {
      const catalog = await loadCatalog();
      replaceChildren(
        tree,
        [...catalog].map(([db, tables]) =>
          el(
            'details',
            { open: db === 'public' },
            el('summary', {}, `${db} (${tables.size})`),
            el(
              'ul',
              {},
              [...tables].map(([table, cols]) =>
                el(
                  'li',
                  {},
                  button(table, () => void showTable(db, table, cols), {
                    class: 'table-link',
                    'data-table': `${db}.${table}`,
                  }),
                ),
              ),
            ),
          ),
        ),
      );
    } catch (err) {
      replaceChildren(tree, errorBox(err instanceof Error ? err.message : String(err)));
    }
  }

  return { refresh };
}

/**
 * The table's live segment bytes over all shards (`information_schema.tables.data_length`, which
 * the public listener serves too, unlike `/metrics`); rows still in memtables are not counted.
 */
async function segmentBytesOf(db: string, table: string): Promise<string> {
  const quote = (v: string) => `'${v.replaceAll("'", "''")}'`;
  const [row] = await sqlObjects(
    `SELECT data_length FROM information_schema.tables WHERE table_schema = ${quote(db)} AND table_name = ${quote(table)}`,
  );
  const bytes = Number(row?.data_length ?? 0);
  return bytes === 0 ? 'nothing flushed yet (rows in memtables)' : formatBytes(bytes);
}
