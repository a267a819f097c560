/** The log explorer over `/v1/logs`: time range, terms, filters, columns, newest first, live tail. */
import { logs } from './api';
import type { Catalog, ColumnInfo } from './catalog';
import { count, el, errorBox, field, replaceChildren, select } from './dom';
import { newestFirst } from './newest';
import { renderTable } from './result-table';
import { RANGES } from './time';

const TAIL_MS = 2000;

interface LogTable {
  db: string;
  table: string;
  columns: ColumnInfo[];
  time: ColumnInfo;
}

function logTables(catalog: Catalog): LogTable[] {
  const out: LogTable[] = [];
  for (const [db, tables] of catalog) {
    if (db === 'information_schema' || db === 'greptime_private') continue;
    for (const [table, columns] of tables) {
      const time = columns.find((c) => c.semantic === 'TIMESTAMP');
      if (time && columns.some((c) => c.type === 'string')) out.push({ db, table, columns, time });
    }
  }
  return out;
}

/** `col=value` pairs separated by commas or new lines, each an exact match. */
export function parseFilters(text: string): Array<[string, string]> {
  return text
    .split(/[,\n]/)
    .map((part) => part.trim())
    .filter((part) => part.includes('='))
    .map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as [string, string];
    });
}

export function createLogsPage(host: HTMLElement): { setCatalog(catalog: Catalog): void } {
  let tables: LogTable[] = [];
  let tail: number | undefined;
  let busy = false;
  const tableSelect = el('select', { onchange: () => columnsChanged() });
  const range = select(RANGES, '3600');
  const terms = el('input', { type: 'search', size: 24, placeholder: 'words to find' });
  const termColumn = el('select', {});
  const filters = el('input', { type: 'text', size: 28, placeholder: 'host=web-1, level=ERROR' });
  const limit = el('input', { type: 'number', min: 1, max: 10000, value: 200, size: 6 });
  const columnBoxes = el('fieldset', { class: 'columns-pick' }, el('legend', {}, 'Columns'));
  const live = el('input', {
    type: 'checkbox',
    onchange: () => {
      window.clearInterval(tail);
      if (live.checked) tail = window.setInterval(() => host.hidden || void search(), TAIL_MS);
    },
  });
  const status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const results = el('div', { class: 'log-results' });
  const form = el(
    'form',
    {
      class: 'controls log-form',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void search();
      },
    },
    field('Table', tableSelect),
    field('Range', range),
    field('Terms', terms),
    field('In column', termColumn),
    field('Filters', filters),
    field('Limit', limit),
    field('Live tail', live),
    el('button', { type: 'submit', class: 'primary' }, 'Search'),
  );
  replaceChildren(host, el('h1', {}, 'Logs'), form, columnBoxes, status, results);

  const current = (): LogTable | undefined => tables[Number(tableSelect.value)];

  function columnsChanged(): void {
    const t = current();
    const strings = t?.columns.filter((c) => c.type === 'string') ?? [];
    replaceChildren(
      termColumn,
      strings.map((c) => el('option', { value: c.name, selected: c.name === 'message' }, c.name)),
    );
    replaceChildren(
      columnBoxes,
      el('legend', {}, 'Columns'),
      (t?.columns ?? []).map((c) =>
        el('label', { class: 'check' }, el('input', { type: 'checkbox', value: c.name, checked: true }), c.name),
      ),
    );
  }

  async function search(): Promise<void> {
    const t = current();
    if (!t || busy) return;
    busy = true;
    const endMs = Date.now();
    const startMs = endMs - Number(range.value) * 1000;
    const and: unknown[] = [];
    const words = terms.value.split(/\s+/).filter((w) => w !== '');
    if (words.length > 0 && termColumn.value) {
      and.push({ Single: { expr: { NamedIdent: termColumn.value }, filters: words.map((w) => ({ Contains: w })) } });
    }
    for (const [column, value] of parseFilters(filters.value)) {
      and.push({ Single: { expr: { NamedIdent: column }, filters: [{ Exact: value }] } });
    }
    const picked = [...columnBoxes.querySelectorAll<HTMLInputElement>('input:checked')].map((i) => i.value);
    // The time index stays in the answer: it orders the lines.
    const columns = picked.length === t.columns.length ? [] : [...new Set([t.time.name, ...picked])];
    const started = performance.now();
    try {
      // /v1/logs has no ORDER BY of its own: newest first is found by narrowing the time window.
      const records = await newestFirst(
        async (fromMs, toMs, fetch) =>
          (
            await logs({
              table: { catalog_name: 'greptime', schema_name: t.db, table_name: t.table },
              time_filter: { start: new Date(fromMs).toISOString(), end: new Date(toMs).toISOString() },
              limit: { fetch },
              columns,
              filters: { And: and },
              context: 'None',
              exprs: [],
            })
          ).records ?? { columns: [], rows: [] },
        startMs,
        endMs + 1,
        Math.max(1, Number(limit.value) || 200),
        t.time.name,
      );
      status.textContent = `${count(records.rows.length, 'line')} in ${Math.round(performance.now() - started)} ms${live.checked ? ' (live)' : ''}`;
      renderTable(results, records, `${t.table}-logs`);
    } catch (err) {
      status.textContent = 'Search failed';
      replaceChildren(results, errorBox(err instanceof Error ? err.message : String(err)));
    } finally {
      busy = false;
    }
  }

  return {
    setCatalog(catalog) {
      const before = current();
      tables = logTables(catalog);
      replaceChildren(
        tableSelect,
        tables.map((t, i) =>
          el(
            'option',
            { value: i, selected: before ? before.db === t.db && before.table === t.table : false },
            `${t.db}.${t.table}`,
          ),
        ),
      );
      columnsChanged();
      if (tables.length === 0)
        replaceChildren(results, el('p', {}, 'No table with a time index and a string column yet.'));
    },
  };
}
