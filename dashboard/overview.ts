/**
 * Ingest and health at a glance, from `/metrics`: rates are the difference of two scrapes. The
 * main listener only: the public API listener does not serve `/metrics` or `/debug`.
 */
import type uPlot from 'uplot';
import { textOf } from './api';
import { drawChart } from './chart';
import { button, el, errorBox, field, formatBytes, replaceChildren, select } from './dom';
import { byLabel, parseExposition, type Sample } from './prom-text';

const SCRAPE_MS = 5000;
const KEEP_POINTS = 120;

interface Scrape {
  atMs: number;
  samples: Sample[];
}

function rate(now: Map<string, number>, before: Map<string, number> | undefined, seconds: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of now) out.set(k, before && seconds > 0 ? Math.max(0, (v - (before.get(k) ?? 0)) / seconds) : 0);
  return out;
}

function table(caption: string, columns: string[], rows: Array<Array<string | number>>): HTMLTableElement {
  return el(
    'table',
    { class: 'results' },
    el('caption', {}, caption),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        columns.map((c) => el('th', { scope: 'col' }, c)),
      ),
    ),
    el(
      'tbody',
      {},
      rows.length === 0
        ? el('tr', {}, el('td', { colspan: columns.length }, 'nothing yet'))
        : rows.map((r) =>
            el(
              'tr',
              {},
              r.map((v, i) => el('td', { class: i > 0 ? 'num' : '' }, String(v))),
            ),
          ),
    ),
  );
}

const perSecond = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

const CPU_SECONDS: Array<[string, string]> = [
  ['5', '5 s'],
  ['10', '10 s'],
  ['30', '30 s'],
];

/**
 * The profiling controls. The server sends flame graphs as `application/octet-stream` (as
 * GreptimeDB does), which a browser would save rather than show, so the SVG is fetched and shown here.
 */
function profilingPanel(): HTMLElement {
  const seconds = select(CPU_SECONDS, '10');
  const status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const view = el('div', { class: 'flame-view' });
  let shown: string | null = null;
  const show = (svg: string, title: string): void => {
    if (shown !== null) URL.revokeObjectURL(shown);
    shown = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    replaceChildren(
      view,
      el('iframe', { class: 'flame', src: shown, title }),
      el('a', { href: shown, target: '_blank', rel: 'noopener' }, 'Open the flame graph in a new tab'),
    );
  };
  const run = async (kind: 'cpu' | 'heap'): Promise<void> => {
    try {
      if (kind === 'cpu') {
        status.textContent = `Profiling the CPU for ${seconds.value} s…`;
        show(
          await textOf(`debug/prof/cpu?seconds=${seconds.value}&output=flamegraph`, { method: 'POST' }),
          'CPU flame graph',
        );
      } else {
        const state = JSON.parse(await textOf('debug/prof/mem/status')) as { active?: boolean };
        // Allocations are only sampled once profiling is on: the first graph shows little.
        if (!state.active) await textOf('debug/prof/mem/activate', { method: 'POST' });
        status.textContent = 'Taking a heap profile…';
        show(await textOf('debug/prof/mem?output=flamegraph', { method: 'POST' }), 'Heap flame graph');
      }
      status.textContent = `${kind === 'cpu' ? 'CPU' : 'Heap'} profile taken ${new Date().toLocaleTimeString()}`;
    } catch (err) {
      status.textContent = 'Profiling failed';
      replaceChildren(view, errorBox(err instanceof Error ? err.message : String(err)));
    }
  };
  return el(
    'div',
    {},
    el(
      'div',
      { class: 'controls' },
      field('CPU profile length', seconds),
      button('CPU profile', () => void run('cpu')),
      button('Heap profile', () => void run('heap')),
    ),
    status,
    view,
  );
}

export function createOverviewPage(host: HTMLElement): { start(): void; stop(): void } {
  let timer: number | undefined;
  let previous: Scrape | null = null;
  let plot: uPlot | null = null;
  const history: { x: number[]; rows: Map<string, Array<number | null>> } = { x: [], rows: new Map() };
  const status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const tables = el('div', { class: 'overview-tables' });
  const chart = el('div', { class: 'overview-chart' });
  replaceChildren(
    host,
    el('h1', {}, 'Overview'),
    status,
    chart,
    tables,
    el('h2', {}, 'Profiling'),
    el('p', {}, 'Flame graphs of the router and every shard (main listener only).'),
    profilingPanel(),
  );

  async function scrape(): Promise<void> {
    let samples: Sample[];
    try {
      samples = parseExposition(await textOf('metrics'));
    } catch (err) {
      replaceChildren(tables, errorBox(`No metrics here: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    const now: Scrape = { atMs: Date.now(), samples };
    const seconds = previous ? (now.atMs - previous.atMs) / 1000 : 0;
    const prior = previous?.samples;
    const pick = (name: string, label: string) => byLabel(samples, name, label);
    const pickBefore = (name: string, label: string) => (prior ? byLabel(prior, name, label) : undefined);
    const rowsByProtocol = rate(
      pick('shoaldb_ingest_rows_total', 'protocol'),
      pickBefore('shoaldb_ingest_rows_total', 'protocol'),
      seconds,
    );
    const bytesByProtocol = rate(
      pick('shoaldb_ingest_bytes_total', 'protocol'),
      pickBefore('shoaldb_ingest_bytes_total', 'protocol'),
      seconds,
    );
    const shardRows = rate(
      pick('shoaldb_shard_rows_written_total', 'shard'),
      pickBefore('shoaldb_shard_rows_written_total', 'shard'),
      seconds,
    );
    const walRate = rate(
      pick('shoaldb_wal_bytes_total', 'shard'),
      pickBefore('shoaldb_wal_bytes_total', 'shard'),
      seconds,
    );
    const memBytes = pick('shoaldb_memtable_bytes', 'shard');
    const memRows = pick('shoaldb_memtable_rows', 'shard');
    const walFiles = pick('shoaldb_wal_files', 'shard');
    const segBytes = pick('shoaldb_segment_bytes', 'shard');
    const flushes = pick('shoaldb_flushes_total', 'shard');
    const compactions = pick('shoaldb_compactions_total', 'shard');
    const shards = [...new Set([...memBytes.keys(), ...shardRows.keys()])].sort((a, b) => Number(a) - Number(b));
    replaceChildren(
      tables,
      table(
        'Ingest by protocol',
        ['Protocol', 'Rows/s', 'Bytes/s', 'Rows total'],
        [...rowsByProtocol.keys()]
          .sort()
          .map((p) => [
            p,
            perSecond(rowsByProtocol.get(p) ?? 0),
            formatBytes(bytesByProtocol.get(p) ?? 0),
            pick('shoaldb_ingest_rows_total', 'protocol').get(p) ?? 0,
          ]),
      ),
      table(
        'Shards',
        [
          'Shard',
          'Rows/s',
          'WAL bytes/s',
          'Memtable',
          'Memtable rows',
          'WAL files',
          'Segment bytes',
          'Flushes',
          'Compactions',
        ],
        shards.map((s) => [
          s,
          perSecond(shardRows.get(s) ?? 0),
          formatBytes(walRate.get(s) ?? 0),
          formatBytes(memBytes.get(s) ?? 0),
          memRows.get(s) ?? 0,
          walFiles.get(s) ?? 0,
          formatBytes(segBytes.get(s) ?? 0),
          flushes.get(s) ?? 0,
          compactions.get(s) ?? 0,
        ]),
      ),
    );
    if (previous) {
      history.x.push(now.atMs / 1000);
      for (const [p, v] of rowsByProtocol) {
        let line = history.rows.get(p);
        if (!line) history.rows.set(p, (line = new Array(history.x.length - 1).fill(null)));
        line.push(v);
      }
      for (const line of history.rows.values()) while (line.length < history.x.length) line.push(null);
      if (history.x.length > KEEP_POINTS) {
        history.x.shift();
        for (const line of history.rows.values()) line.shift();
      }
      plot?.destroy();
      plot = drawChart(
        chart,
        { x: history.x, series: [...history.rows].map(([label, values]) => ({ label, values })) },
        { log: false, stacked: true },
        'Rows/s by protocol',
      );
    }
    status.textContent = `Updated ${new Date(now.atMs).toLocaleTimeString()}, every ${SCRAPE_MS / 1000} s`;
    previous = now;
  }

  return {
    start() {
      window.clearInterval(timer);
      void scrape();
      timer = window.setInterval(() => void scrape(), SCRAPE_MS);
    },
    stop() {
      window.clearInterval(timer);
    },
  };
}
