/**
 * The side-by-side table of the log bench: per data set and figure the median over the runs of
 * ShoalDB and of ClickHouse and their ratio ShoalDB / ClickHouse. For throughput a ratio above 1
 * means ShoalDB is faster; for CPU, memory, disk and search time a ratio below 1 means ShoalDB
 * uses less (the `better` column says which).
 */
import { median } from '../peers/stats.js';
import type { IngestFigures, RunFigures } from './load.js';
import type { LogSet } from './sets.js';

interface Figure {
  name: string;
  of: (f: IngestFigures) => number;
  digits: number;
  better: '> 1' | '< 1';
}

const FIGURES: Figure[] = [
  { name: 'lines/s', of: (f) => f.linesPerSecond, digits: 0, better: '> 1' },
  { name: 'MB/s (raw lines)', of: (f) => f.mbPerSecond, digits: 1, better: '> 1' },
  { name: 'CPU-s per GB', of: (f) => f.cpuSecondsPerGb, digits: 1, better: '< 1' },
  { name: 'peak RSS MiB', of: (f) => f.peakRssMiB, digits: 0, better: '< 1' },
  { name: 'health p99 ms', of: (f) => f.healthP99Ms, digits: 1, better: '< 1' },
  { name: 'disk bytes/line', of: (f) => f.diskBytesPerLine, digits: 1, better: '< 1' },
];

const show = (n: number, digits: number) =>
  Number.isFinite(n) ? (digits === 0 ? Math.round(n).toLocaleString('en-US') : n.toFixed(digits)) : '—';
const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? (a / b).toFixed(2) : '—');

/** Whether every run stored every line of set `i`, as `OK` or the smallest count seen. */
function storedOf(runs: RunFigures[], i: number, lines: number): string {
  const counts = runs.map((r) => r.ingest[i]?.stored ?? -1);
  return counts.every((c) => c === lines) ? 'OK' : `${Math.min(...counts)}/${lines}`;
}

/** Prints the side-by-side ingest and search tables (markdown) with medians and ratios. */
export function printComparison(sets: LogSet[], shoal: RunFigures[], clickhouse: RunFigures[], note: string): void {
  const lines: string[] = [
    '| data set | figure | ShoalDB | ClickHouse | ShoalDB / ClickHouse | better |',
    '|---|---|---|---|---|---|',
  ];
  sets.forEach((set, i) => {
    const medianOf = (runs: RunFigures[], figure: Figure) =>
      median(runs.map((r) => figure.of(r.ingest[i] as IngestFigures)));
    for (const figure of FIGURES) {
      const a = medianOf(shoal, figure);
      const b = medianOf(clickhouse, figure);
      lines.push(
        `| ${set.name} | ${figure.name} | ${show(a, figure.digits)} | ${show(b, figure.digits)} | ${ratio(a, b)} | ${figure.better} |`,
      );
    }
    lines.push(
      `| ${set.name} | stored | ${storedOf(shoal, i, set.lines)} | ${storedOf(clickhouse, i, set.lines)} | | |`,
    );
  });
  lines.push(
    '',
    '| search (access table) | ShoalDB ms | ClickHouse ms | ShoalDB / ClickHouse | better | answers (ShoalDB / ClickHouse) |',
    '|---|---|---|---|---|---|',
  );
  const searchNames = shoal[0]?.searches.map((s) => s.search) ?? [];
  searchNames.forEach((name, i) => {
    const a = median(shoal.map((r) => r.searches[i]?.ms ?? Number.NaN));
    const b = median(clickhouse.map((r) => r.searches[i]?.ms ?? Number.NaN));
    const answerA = shoal[0]?.searches[i]?.answer.slice(0, 40) ?? '';
    const answerB = clickhouse[0]?.searches[i]?.answer.slice(0, 40) ?? '';
    const same = answerA === answerB ? 'same' : 'DIFFERENT';
    lines.push(
      `| ${name} | ${show(a, 1)} | ${show(b, 1)} | ${ratio(a, b)} | < 1 | ${answerA} / ${answerB} (${same}) |`,
    );
  });
  console.log(
    `\nShoalDB vs ClickHouse, median of ${shoal.length} / ${clickhouse.length} runs, fresh server per run; ${note}\n`,
  );
  console.log(lines.join('\n'));
}
