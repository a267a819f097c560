/** Time series drawn with uPlot: drag to zoom, click a legend entry to hide its line. */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Records, Series } from './api';
import { isTimestampType, timestampMs } from './time';

export interface ChartData {
  /** Unix seconds, ascending. */
  x: number[];
  series: Array<{ label: string; values: Array<number | null> }>;
}

export interface ChartOptions {
  log: boolean;
  stacked: boolean;
}

/** Colours distinct enough side by side, dark enough to read on white. */
const PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
  '#ff7f0e',
];

function labelOf(labels: Record<string, string>): string {
  const name = labels.__name__ ?? '';
  const rest = Object.entries(labels)
    .filter(([k]) => k !== '__name__')
    .map(([k, v]) => `${k}="${v}"`)
    .join(', ');
  return rest === '' ? name || '{}' : `${name}{${rest}}`;
}

/** A PromQL matrix on a shared time axis: one line per series. */
export function fromMatrix(matrix: Series[]): ChartData {
  const times = new Set<number>();
  for (const s of matrix) for (const [t] of s.values) times.add(t);
  const x = [...times].sort((a, b) => a - b);
  const at = new Map(x.map((t, i) => [t, i]));
  return {
    x,
    series: matrix.map((s) => {
      const values: Array<number | null> = new Array(x.length).fill(null);
      for (const [t, v] of s.values) values[at.get(t) as number] = Number(v);
      return { label: labelOf(s.labels), values };
    }),
  };
}

/**
 * A SQL result with a time index: one line per numeric column and per combination of the string
 * columns (the tags), or null when there is no timestamp or no number to draw.
 */
export function fromRecords(records: Records): ChartData | null {
  const timeAt = records.columns.findIndex((c) => isTimestampType(c.type));
  if (timeAt < 0) return null;
  const numeric = records.columns.flatMap((c, i) => (/Int|Float|Decimal/.test(c.type) ? [i] : []));
  if (numeric.length === 0) return null;
  const keys = records.columns.flatMap((c, i) => (c.type === 'String' ? [i] : []));
  const timeType = records.columns[timeAt]?.type ?? '';
  const times = new Set<number>();
  const groups = new Map<string, Map<number, number>>();
  for (const row of records.rows) {
    const ms = timestampMs(row[timeAt], timeType);
    if (ms === null) continue;
    const t = ms / 1000;
    times.add(t);
    const key = keys.map((k) => `${records.columns[k]?.name}=${row[k]}`).join(', ');
    for (const n of numeric) {
      const label = key === '' ? (records.columns[n]?.name ?? '') : `${records.columns[n]?.name}{${key}}`;
      let points = groups.get(label);
      if (!points) groups.set(label, (points = new Map()));
      const v = row[n];
      if (typeof v === 'number') points.set(t, v);
    }
  }
  const x = [...times].sort((a, b) => a - b);
  return {
    x,
    series: [...groups].map(([label, points]) => ({ label, values: x.map((t) => points.get(t) ?? null) })),
  };
}

/** Stacking: each line is drawn at the sum of itself and the lines before it. */
function stack(series: ChartData['series']): ChartData['series'] {
  const sums: number[] = [];
  return series.map((s) => ({
    label: s.label,
    values: s.values.map((v, i) => {
      if (v === null) return null;
      sums[i] = (sums[i] ?? 0) + v;
      return sums[i] as number;
    }),
  }));
}

/** Draws into `host` (replacing what was there); returns the plot so the caller can destroy it. */
export function drawChart(host: HTMLElement, data: ChartData, opts: ChartOptions, title: string): uPlot {
  host.replaceChildren();
  let series = opts.stacked ? stack(data.series) : data.series;
  // A logarithmic axis cannot show zero or negatives: they become gaps.
  if (opts.log) series = series.map((s) => ({ ...s, values: s.values.map((v) => (v !== null && v > 0 ? v : null)) }));
  const width = Math.max(320, host.clientWidth || 800);
  const plot = new uPlot(
    {
      title,
      width,
      height: 320,
      scales: { y: opts.log ? { distr: 3 } : {} },
      series: [
        {},
        ...series.map((s, i) => {
          const color = PALETTE[i % PALETTE.length] as string;
          return {
            label: s.label,
            stroke: color,
            width: 1.5,
            spanGaps: false,
            fill: opts.stacked ? `${color}33` : undefined,
          };
        }),
      ],
      axes: [{}, { size: 70 }],
      cursor: { drag: { x: true, y: false } },
      hooks: {
        // The shown window, for whoever reads the page (a zoom by dragging changes it).
        setScale: [
          (u: uPlot, key: string) => {
            if (key !== 'x') return;
            host.dataset.xMin = String(u.scales.x?.min ?? '');
            host.dataset.xMax = String(u.scales.x?.max ?? '');
          },
        ],
      },
    },
    [data.x, ...series.map((s) => s.values)] as uPlot.AlignedData,
    host,
  );
  host.setAttribute('data-series', String(series.length));
  return plot;
}
