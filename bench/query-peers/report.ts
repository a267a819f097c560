/**
 * A section's figures as Markdown tables (ready for RESULTS.md): per query each system's median
 * and minimum, ShoalDB ÷ peer of the medians, and whether the answers agree. A peer whose answer
 * differs from ShoalDB's gets no ratio: comparing the speed of different answers says nothing.
 */
import { type Outcome, type Section, type SystemFigures, WARMUP_MS, WARMUPS } from './timing.js';

const fmt = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0));

function cell(o: Outcome | undefined): string {
  if (!o) return 'not run';
  if ('error' in o) return 'error';
  return `${fmt(o.medianMs)} / ${fmt(o.minMs)}`;
}

export function describeSection(section: Section, runs: number): string[] {
  const [shoal, ...peers] = section.systems;
  const lines = [
    `### ${section.title}`,
    '',
    `Median / min of ${runs} runs after warm-ups (at least ${WARMUPS} runs and ${WARMUP_MS} ms), ms (client side).`,
    '',
  ];
  if (!shoal) return [...lines, 'No system ran.'];
  const header = ['query', ...section.systems.map((s) => s.name), ...peers.map((p) => `ShoalDB ÷ ${p.name}`), 'answer'];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`);
  const loud: string[] = [];
  for (const q of section.queries) {
    const mine = shoal.outcomes.get(q.name);
    const ratios = peers.map((p) => {
      const theirs = p.outcomes.get(q.name);
      if (!mine || !theirs || 'error' in mine || 'error' in theirs) return '—';
      if (mine.answer.key !== theirs.answer.key) return '— (answer differs)';
      return (mine.medianMs / theirs.medianMs).toFixed(2);
    });
    lines.push(
      `| ${[q.name, ...section.systems.map((s) => cell(s.outcomes.get(q.name))), ...ratios, answerCell(q.name, section.systems, loud)].join(' | ')} |`,
    );
  }
  lines.push('');
  lines.push(
    `| system | stored ${section.unit} | expected | load s | peak RSS MiB (queries) | notes |`,
    '|---|---|---|---|---|---|',
  );
  for (const s of section.systems) {
    const stored =
      s.stored === s.expected ? s.stored.toLocaleString('en-US') : `**${s.stored.toLocaleString('en-US')} (MISMATCH)**`;
    const notes = [s.peakRssNote, ...s.notes].filter(Boolean).join('; ');
    lines.push(
      `| ${s.name} | ${stored} | ${s.expected.toLocaleString('en-US')} | ${s.loadSeconds.toFixed(1)} | ${s.peakRssMiB} | ${notes} |`,
    );
  }
  for (const note of section.notes) lines.push('', note);
  lines.push('', 'Queries:');
  for (const q of section.queries) {
    const texts = Object.entries(q.text);
    if (texts.length === 1) lines.push(`- ${q.name}: \`${texts[0]?.[1]}\``);
    else lines.push(`- ${q.name}: ${texts.map(([who, text]) => `${who} \`${text}\``).join('; ')}`);
  }
  if (loud.length > 0) lines.push('', ...loud.map((l) => `!! ${l}`));
  for (const s of section.systems) {
    for (const [name, o] of s.outcomes) if ('error' in o) lines.push(`!! ${s.name} failed "${name}": ${o.error}`);
  }
  return [...lines, ''];
}

/** What the answers were: one detail when all agree, else each system's, noted in `loud`. */
function answerCell(name: string, systems: SystemFigures[], loud: string[]): string {
  const answered = systems.flatMap((s) => {
    const o = s.outcomes.get(name);
    return o && !('error' in o) ? [{ system: s.name, answer: o.answer }] : [];
  });
  if (answered.length === 0) return '';
  const keys = new Set(answered.map((a) => a.answer.key));
  if (keys.size === 1) return answered[0]?.answer.detail ?? '';
  const each = answered.map((a) => `${a.system} ${a.answer.detail}`).join('; ');
  loud.push(`ANSWERS DIFFER for "${name}": ${each}`);
  return `**MISMATCH**: ${each}`;
}
