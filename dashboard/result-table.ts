/** A result as a table: typed headers that sort, pages of rows, and export as CSV or JSON. */
import type { Records } from './api';
import { button, download, el, replaceChildren } from './dom';
import { isoOf, isTimestampType, timestampMs } from './time';

const PAGE_SIZE = 100;

export function cellText(value: unknown, type: string): string {
  if (value === null || value === undefined) return 'NULL';
  if (isTimestampType(type)) {
    const ms = timestampMs(value, type);
    return ms === null ? String(value) : isoOf(ms);
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(records: Records): string {
  const lines = [records.columns.map((c) => csvField(c.name)).join(',')];
  for (const row of records.rows) {
    lines.push(row.map((v, i) => (v === null ? '' : csvField(cellText(v, records.columns[i]?.type ?? '')))).join(','));
  }
  return `${lines.join('\n')}\n`;
}

export function toJson(records: Records): string {
  const objects = records.rows.map((row) => Object.fromEntries(records.columns.map((c, i) => [c.name, row[i]])));
  return JSON.stringify(objects, null, 2);
}

/** Renders `records` into `host`; the table keeps its own sort and page. */
export function renderTable(host: HTMLElement, records: Records, name = 'result'): void {
  let sortColumn = -1;
  let descending = false;
  let page = 0;
  let rows = records.rows;
  const pages = (): number => Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const table = el('table', { class: 'results' });
  const pager = el('div', { class: 'pager' });

  const draw = (): void => {
    const head = el(
      'tr',
      {},
      records.columns.map((c, i) => {
        const sorted = i === sortColumn ? (descending ? 'descending' : 'ascending') : 'none';
        return el(
          'th',
          { scope: 'col', 'aria-sort': sorted },
          button(
            c.name,
            () => {
              descending = sortColumn === i ? !descending : false;
              sortColumn = i;
              rows = [...records.rows].sort((a, b) => compare(a[i], b[i]) * (descending ? -1 : 1));
              page = 0;
              draw();
            },
            { class: 'sort', title: `Sort by ${c.name}` },
          ),
          el('span', { class: 'type' }, c.type),
        );
      }),
    );
    const body = rows.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).map((row) =>
      el(
        'tr',
        {},
        row.map((v, i) => {
          const type = records.columns[i]?.type ?? '';
          return el(
            'td',
            { class: v === null ? 'null' : /Int|Float|Decimal/.test(type) ? 'num' : '' },
            cellText(v, type),
          );
        }),
      ),
    );
    replaceChildren(table, el('thead', {}, head), el('tbody', {}, body));
    replaceChildren(
      pager,
      button(
        'Previous page',
        () => {
          page -= 1;
          draw();
        },
        { disabled: page === 0 },
      ),
      el('span', { 'aria-live': 'polite' }, `Page ${page + 1} of ${pages()}`),
      button(
        'Next page',
        () => {
          page += 1;
          draw();
        },
        { disabled: page + 1 >= pages() },
      ),
      button('Export CSV', () => download(`${name}.csv`, 'text/csv', toCsv(records))),
      button('Export JSON', () => download(`${name}.json`, 'application/json', toJson(records))),
    );
  };
  draw();
  replaceChildren(host, el('div', { class: 'table-scroll' }, table), pager);
}
