/** Summarises V8 .cpuprofile files (from `node --cpu-prof`): the functions with most self time. */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  startTime: number;
  endTime: number;
}

export function summariseProfiles(dir: string, top = 12): string {
  const lines: string[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
    const total = profile.samples.length;
    const byFunction = new Map<string, number>();
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      if (hits === 0) continue;
      const url = node.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '$1/');
      const name =
        `${node.callFrame.functionName || '(anonymous)'} ${url ? `${url}:${node.callFrame.lineNumber + 1}` : ''}`.trim();
      byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
    }
    const sorted = [...byFunction.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
    lines.push(`${file} (${total} samples, ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s):`);
    for (const [name, hits] of sorted) lines.push(`  ${((100 * hits) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
  return lines.join('\n');
}
