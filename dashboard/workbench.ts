/** The query workbench: SQL and PromQL editors, results as a table or a chart, and history. */
import { closeCompletion } from '@codemirror/autocomplete';
import type { SQLNamespace } from '@codemirror/lang-sql';
import type { EditorView } from 'codemirror';
import type uPlot from 'uplot';
import { ApiError, promRange, type Records, sql } from './api';
import { type ChartData, drawChart, fromMatrix, fromRecords } from './chart';
import { button, count, el, errorBox, field, replaceChildren, select } from './dom';
import { clearErrors, createEditor, markError, promqlSupport, setText, sqlSupport, textOf } from './editor';
import { clearHistory, type HistoryEntry, loadHistory, remember } from './history';
import { renderTable } from './result-table';
import { autoStep, RANGES } from './time';

type Language = 'sql' | 'promql';

export interface Workbench {
  setQuery(language: Language, text: string): void;
  setSchema(schema: SQLNamespace): void;
  run(): Promise<void>;
}

const REFRESH: Array<[string, string]> = [
  ['0', 'Off'],
  ['5', 'Every 5 s'],
  ['10', 'Every 10 s'],
  ['30', 'Every 30 s'],
  ['60', 'Every minute'],
];

export function createWorkbench(host: HTMLElement): Workbench {
  let language: Language = 'sql';
  let plot: uPlot | null = null;
  let chartData: ChartData | null = null;
  let lastTitle = '';
  let timer: number | undefined;
  let inFlight: AbortController | null = null;

  const sqlHost = el('div', { class: 'editor' });
  const promHost = el('div', { class: 'editor', hidden: true });
  const sqlLang = sqlSupport();
  const run = (): void => void runQuery();
  const sqlView = createEditor({
    parent: sqlHost,
    doc: 'SELECT * FROM information_schema.tables LIMIT 100',
    label: 'SQL query',
    language: sqlLang.extension,
    onRun: run,
  });
  const promView = createEditor({
    parent: promHost,
    doc: '',
    label: 'PromQL query',
    language: promqlSupport(),
    onRun: run,
  });
  const view = (): EditorView => (language === 'sql' ? sqlView : promView);

  const radios = (['sql', 'promql'] as const).map((lang) =>
    el(
      'label',
      { class: 'radio' },
      el('input', {
        type: 'radio',
        name: 'language',
        value: lang,
        checked: lang === language,
        onchange: () => setLanguage(lang),
      }),
      lang === 'sql' ? 'SQL' : 'PromQL',
    ),
  );
  const db = el('input', { type: 'text', value: 'public', size: 12, spellcheck: 'false' });
  const range = select(RANGES, '3600');
  const step = el('input', { type: 'text', placeholder: 'auto', size: 6, inputmode: 'numeric' });
  const refresh = select(REFRESH, '0', { onchange: () => scheduleRefresh() });
  const logScale = el('input', { type: 'checkbox', onchange: () => redraw() });
  const stacked = el('input', { type: 'checkbox', onchange: () => redraw() });
  const dbField = field('Database', db);
  const promFields = el('span', { class: 'prom-only', hidden: true }, field('Range', range), field('Step (s)', step));
  const runButton = button('Run', run, { class: 'primary', title: 'Run (Ctrl+Enter)' });
  const status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const tableHost = el('div', { class: 'result-table' });
  const chartHost = el('div', { class: 'result-chart', hidden: true });
  const tableTab = button('Table', () => showResult('table'), { 'aria-pressed': 'true' });
  const chartTab = button('Chart', () => showResult('chart'), { 'aria-pressed': 'false', disabled: true });
  const historyList = el('ol', { class: 'history-list' });

  function setLanguage(next: Language): void {
    language = next;
    sqlHost.hidden = next !== 'sql';
    promHost.hidden = next !== 'promql';
    dbField.hidden = next !== 'sql';
    promFields.hidden = next !== 'promql';
    for (const r of radios) {
      const input = r.querySelector('input') as HTMLInputElement;
      input.checked = input.value === next;
    }
  }

  function showResult(which: 'table' | 'chart'): void {
    tableHost.hidden = which !== 'table';
    chartHost.hidden = which !== 'chart';
    tableTab.setAttribute('aria-pressed', String(which === 'table'));
    chartTab.setAttribute('aria-pressed', String(which === 'chart'));
    if (which === 'chart') redraw();
  }

  function redraw(): void {
    plot?.destroy();
    plot = null;
    if (chartData === null || chartHost.hidden) return;
    plot = drawChart(chartHost, chartData, { log: logScale.checked, stacked: stacked.checked }, lastTitle);
  }

  function scheduleRefresh(): void {
    window.clearInterval(timer);
    const seconds = Number(refresh.value);
    // Only while the page is shown: a hidden workbench has nobody to refresh for.
    if (seconds > 0) timer = window.setInterval(() => host.hidden || void runQuery(false), seconds * 1000);
  }

  function drawHistory(entries: HistoryEntry[]): void {
    replaceChildren(
      historyList,
      entries.map((e) =>
        el(
          'li',
          {},
          button(e.query, () => setQuery(e.language, e.query), {
            class: 'history-item',
            title: `${e.language === 'sql' ? 'SQL' : 'PromQL'}, ${new Date(e.at).toLocaleString()}`,
          }),
        ),
      ),
    );
  }

  function setQuery(lang: Language, text: string): void {
    setLanguage(lang);
    setText(view(), text);
    view().focus();
  }

  async function runQuery(record = true): Promise<void> {
    const editor = view();
    const query = textOf(editor).trim();
    if (query === '') return;
    // The completion list would stay open over the results.
    closeCompletion(editor);
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    clearErrors(editor);
    status.textContent = 'Running…';
    const started = performance.now();
    try {
      let records: Records | null;
      let summary: string;
      if (language === 'sql') {
        const answer = await sql(query, db.value.trim() || 'public', controller.signal);
        records = answer.records;
        chartData = records ? fromRecords(records) : null;
        summary = records ? count(records.rows.length, 'row') : `${count(answer.affectedRows ?? 0, 'row')} affected`;
      } else {
        const rangeS = Number(range.value);
        const end = Math.floor(Date.now() / 1000);
        const stepS = Number(step.value) > 0 ? Number(step.value) : autoStep(rangeS);
        const matrix = await promRange(query, end - rangeS, end, stepS, controller.signal);
        chartData = fromMatrix(matrix);
        records = {
          columns: [
            { name: 'series', type: 'String' },
            { name: 'ts', type: 'TimestampSecond' },
            { name: 'value', type: 'Float64' },
          ],
          rows: chartData.series.flatMap((s) =>
            s.values.flatMap((v, i) => (v === null ? [] : [[s.label, chartData?.x[i], v]])),
          ),
        };
        summary = `${matrix.length} series, ${records.rows.length} points, step ${stepS} s`;
      }
      const ms = Math.round(performance.now() - started);
      status.textContent = `${summary} in ${ms} ms`;
      lastTitle = query.length > 80 ? `${query.slice(0, 77)}…` : query;
      if (records) renderTable(tableHost, records, language === 'sql' ? 'sql-result' : 'promql-result');
      else replaceChildren(tableHost);
      chartTab.disabled = chartData === null;
      if (record) drawHistory(remember(language, query));
      showResult(
        language === 'promql' && chartData !== null
          ? 'chart'
          : chartData !== null && !chartHost.hidden
            ? 'chart'
            : 'table',
      );
    } catch (err) {
      if (controller.signal.aborted) return;
      const message = err instanceof Error ? err.message : String(err);
      status.textContent = `Failed after ${Math.round(performance.now() - started)} ms`;
      replaceChildren(tableHost, errorBox(message));
      chartData = null;
      chartTab.disabled = true;
      showResult('table');
      markError(editor, message, err instanceof ApiError ? err.position : null);
    } finally {
      if (inFlight === controller) inFlight = null;
    }
  }

  replaceChildren(
    host,
    el(
      'div',
      { class: 'workbench' },
      el(
        'div',
        { class: 'main-pane' },
        el('h1', {}, 'Query'),
        el('fieldset', { class: 'language' }, el('legend', {}, 'Language'), radios),
        sqlHost,
        promHost,
        el(
          'div',
          { class: 'controls' },
          runButton,
          dbField,
          promFields,
          field('Auto-refresh', refresh),
          field('Log scale', logScale),
          field('Stacked', stacked),
        ),
        status,
        el('div', { class: 'result-switch', role: 'group', 'aria-label': 'Result view' }, tableTab, chartTab),
        tableHost,
        chartHost,
      ),
      el(
        'aside',
        { class: 'history', 'aria-labelledby': 'history-title' },
        el('h2', { id: 'history-title' }, 'History'),
        historyList,
        button('Clear history', () => {
          clearHistory();
          drawHistory([]);
        }),
      ),
    ),
  );
  drawHistory(loadHistory());
  // uPlot draws at a fixed width: a resized window gets a redrawn chart.
  let resizeTimer: number | undefined;
  window.addEventListener('resize', () => {
    window.clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(redraw, 150);
  });

  return {
    setQuery,
    setSchema: (schema) => sqlLang.setSchema(sqlView, schema),
    run: runQuery,
  };
}
