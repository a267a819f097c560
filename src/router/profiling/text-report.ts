/**
 * `output=text`: the functions with most flat (self) value, in the column layout of
 * `go tool pprof -top` plus the source position, so a profile can be read with nothing but curl.
 */
import type { Profile } from 'pprof-format';
import { formatValue, readStacks } from './profile-stacks.js';

/** Rows shown; the rest are summed up in the header line. */
export const TEXT_ROWS_DEFAULT = 50;

interface Row {
  name: string;
  file: string;
  line: number;
  flat: number;
  cum: number;
}

export function renderTextReport(profile: Profile, rowsMax = TEXT_ROWS_DEFAULT): string {
  const { type, unit, stacks, total } = readStacks(profile);
  const rows = new Map<string, Row>();
  const threads = new Set<string>();
  for (const stack of stacks) {
    if (stack.thread !== '') threads.add(stack.thread);
    // A recursive function counts once towards cum per sample.
    const seen = new Set<string>();
    stack.frames.forEach((frame, index) => {
      const key = `${frame.name}\0${frame.file}`;
      let row = rows.get(key);
      if (row === undefined) {
        row = { name: frame.name, file: frame.file, line: frame.line, flat: 0, cum: 0 };
        rows.set(key, row);
      }
      if (frame.line > 0 && (row.line === 0 || frame.line < row.line)) row.line = frame.line;
      if (!seen.has(key)) {
        seen.add(key);
        row.cum += stack.value;
      }
      if (index === stack.frames.length - 1) row.flat += stack.value;
    });
  }
  const sorted = [...rows.values()].sort((a, b) => b.flat - a.flat || b.cum - a.cum || a.name.localeCompare(b.name));
  const shown = sorted.slice(0, rowsMax);
  const percent = (v: number): string => `${total > 0 ? ((100 * v) / total).toFixed(2) : '0.00'}%`;
  const out = [
    `Type: ${type} (${unit})`,
    `Threads: ${threads.size > 0 ? [...threads].sort(threadOrder).join(', ') : '(none)'}`,
    `Total: ${formatValue(total, unit)}; showing top ${shown.length} of ${sorted.length} functions by flat`,
    `${'flat'.padStart(12)} ${'flat%'.padStart(7)} ${'sum%'.padStart(7)} ${'cum'.padStart(12)} ${'cum%'.padStart(7)}  function  file:line`,
  ];
  let sum = 0;
  for (const row of shown) {
    sum += row.flat;
    const where = row.file === '' ? '' : `${row.file}:${row.line}`;
    out.push(
      `${formatValue(row.flat, unit).padStart(12)} ${percent(row.flat).padStart(7)} ${percent(sum).padStart(7)} ` +
        `${formatValue(row.cum, unit).padStart(12)} ${percent(row.cum).padStart(7)}  ${row.name}  ${where}`,
    );
  }
  return `${out.join('\n')}\n`;
}

/** `router` first, then shards by number. */
export function threadOrder(a: string, b: string): number {
  const rank = (t: string): number => (t === 'router' ? -1 : Number(t.replace(/^shard-/, '')));
  const ra = rank(a);
  const rb = rank(b);
  return Number.isNaN(ra) || Number.isNaN(rb) ? a.localeCompare(b) : ra - rb;
}
