/**
 * `output=flamegraph`: a self-contained interactive SVG (no external scripts, fonts or styles).
 * The bottom row is the whole profile, the row above it one frame per thread, then the call
 * stacks; a frame's width is its share of the total. Interaction lives in flamegraph-script.ts.
 */
import type { Profile } from 'pprof-format';
import { FLAMEGRAPH_SCRIPT } from './flamegraph-script.js';
import { formatValue, readStacks } from './profile-stacks.js';
import { threadOrder } from './text-report.js';

const WIDTH_PX = 1200;
const PAD_PX = 10;
const FRAME_PX = 17;
const TOP_PX = 56;
const BOTTOM_PX = 28;
/** Frames below this share of the total are left out: under a tenth of a pixel, even half zoomed. */
const FRAME_SHARE_MIN = 0.00005;
/** Upper bound on frames drawn, so a huge profile still yields an SVG a browser opens quickly. */
const FRAMES_MAX = 30_000;

interface Node {
  label: string;
  where: string;
  value: number;
  children: Map<string, Node>;
}

function child(parent: Node, label: string, where: string): Node {
  const key = `${label}\0${where}`;
  let node = parent.children.get(key);
  if (node === undefined) {
    node = { label, where, value: 0, children: new Map() };
    parent.children.set(key, node);
  }
  return node;
}

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Warm colours for our own code, cooler for dependencies and V8/node internals. */
function colourOf(label: string, where: string, depth: number): string {
  let hash = 0;
  for (let i = 0; i < label.length; i++) hash = (hash * 31 + label.charCodeAt(i)) | 0;
  const jitter = Math.abs(hash) % 40;
  if (depth <= 1) return 'rgb(200,200,200)';
  if (where.startsWith('src/')) return `rgb(${215 + (jitter % 40)},${90 + jitter * 2},40)`;
  if (where.includes('node_modules')) return `rgb(${200 + (jitter % 40)},${170 + jitter},60)`;
  return `rgb(${110 + jitter},${160 + jitter},${200 + (jitter % 40)})`;
}

export function renderFlamegraph(profile: Profile, title: string): string {
  const { type, unit, stacks, total } = readStacks(profile);
  const root: Node = { label: 'all', where: '', value: 0, children: new Map() };
  for (const stack of stacks) {
    if (stack.value <= 0) continue;
    root.value += stack.value;
    let node = child(root, stack.thread === '' ? '(no thread)' : stack.thread, '');
    node.value += stack.value;
    for (const frame of stack.frames) {
      node = child(node, frame.name, frame.file === '' ? '' : `${frame.file}:${frame.line}`);
      node.value += stack.value;
    }
  }
  const frames: string[] = [];
  let maxDepth = 0;
  const sum = root.value > 0 ? root.value : 1;
  const minValue = sum * FRAME_SHARE_MIN;
  // Breadth-first so that, past FRAMES_MAX, the deepest (narrowest) frames are the ones dropped.
  const queue: { node: Node; x: number; depth: number }[] = [{ node: root, x: 0, depth: 0 }];
  for (let head = 0; head < queue.length && frames.length < FRAMES_MAX; head++) {
    const { node, x, depth } = queue[head] as { node: Node; x: number; depth: number };
    maxDepth = Math.max(maxDepth, depth);
    const label = node.where === '' ? node.label : `${node.label} (${node.where})`;
    const share = node.value / sum;
    const detail = `${label}: ${formatValue(node.value, unit)} (${(100 * share).toFixed(2)}%)`;
    const colour = colourOf(node.label, node.where, depth);
    frames.push(
      `<g class="f" data-x="${x / sum}" data-w="${share}" data-d="${depth}" data-n="${escapeXml(node.label)}" data-c="${colour}">` +
        `<title>${escapeXml(detail)}</title><rect y="${-(depth + 1) * FRAME_PX}" height="${FRAME_PX - 1}" fill="${colour}" rx="2"/>` +
        `<text y="${-(depth + 1) * FRAME_PX + 12}"></text></g>`,
    );
    const children = [...node.children.values()].sort((a, b) =>
      depth === 0 ? threadOrder(a.label, b.label) : a.label.localeCompare(b.label),
    );
    let at = x;
    for (const c of children) {
      if (c.value >= minValue) queue.push({ node: c, x: at, depth: depth + 1 });
      at += c.value;
    }
  }
  const height = TOP_PX + (maxDepth + 1) * FRAME_PX + BOTTOM_PX;
  const baseY = TOP_PX + (maxDepth + 1) * FRAME_PX;
  const heading = `${title}: ${type} (${unit}), total ${formatValue(total, unit)}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${WIDTH_PX}" height="${height}" viewBox="0 0 ${WIDTH_PX} ${height}" data-width="${WIDTH_PX}" data-pad="${PAD_PX}" font-family="monospace" font-size="12">`,
    // Frame labels let the pointer through to their frame's rect: a label wider than a narrow
    // frame would otherwise take its clicks.
    '<style>g.f { cursor: pointer; } g.f:hover rect { stroke: #000; stroke-width: 0.5; } g.f text { pointer-events: none; } text { fill: #000; } #reset { cursor: pointer; }</style>',
    `<rect x="0" y="0" width="${WIDTH_PX}" height="${height}" fill="#fbfbf6"/>`,
    `<text x="${WIDTH_PX / 2}" y="20" text-anchor="middle" font-size="15">${escapeXml(heading)}</text>`,
    `<text id="reset" x="${PAD_PX}" y="44" opacity="0.3">Reset zoom</text>`,
    `<foreignObject x="${WIDTH_PX - PAD_PX - 260}" y="28" width="260" height="24"><input xmlns="http://www.w3.org/1999/xhtml" id="search" type="search" placeholder="Search (regular expression)" style="width:250px;font:12px monospace"/></foreignObject>`,
    `<text id="matched" x="${WIDTH_PX - PAD_PX - 270}" y="44" text-anchor="end"> </text>`,
    `<text id="details" x="${PAD_PX}" y="${height - 9}"> </text>`,
    `<g id="frames" transform="translate(0,${baseY})">`,
    ...frames,
    '</g>',
    `<script type="text/ecmascript"><![CDATA[${FLAMEGRAPH_SCRIPT}]]></script>`,
    '</svg>',
    '',
  ].join('\n');
}
