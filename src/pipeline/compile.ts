/**
 * Pipeline YAML (reference §9) → `Pipeline`. Everything is resolved here once: processor options,
 * patterns, formats, transform columns, dispatcher rules. Every error is a PipelineError with the
 * line and column of the offending YAML node, so that users can find it in their file.
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
  visit,
  type YAMLMap,
} from 'yaml';
import { AutoRows, autoTimeIndex } from './auto-transform.js';
import { compileDispatcher, type Dispatcher, SuffixTemplate } from './dispatch.js';
import { identityPipeline } from './identity.js';
import { Pipeline } from './pipeline.js';
import { PipelineError, type PositionOf, type Processor, ProcessorOptions } from './processor.js';
import { PROCESSORS } from './processors/index.js';
import { compileTransform, type TransformEntry, TransformRows } from './transform.js';

type Position = { line: number; column: number } | undefined;

const TOP_LEVEL_KEYS = new Set([
  'version',
  'description',
  'processors',
  'transform',
  'transforms',
  'dispatcher',
  'table_suffix',
]);

/** Compiles pipeline YAML; throws PipelineError. */
export function compilePipeline(yamlText: string): Pipeline {
  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter, prettyErrors: false });
  const at = (node: { range?: [number, number, number] | null } | null | undefined): Position => {
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const error = doc.errors[0];
  if (error !== undefined) {
    const p = lineCounter.linePos(error.pos[0]);
    throw new PipelineError(`invalid YAML: ${error.message.split('\n')[0]}`, p.line, p.col);
  }
  checkAliases(doc, at);
  const root = doc.contents;
  if (!isMap(root)) throw new PipelineError('a pipeline must be a YAML map', at(root)?.line, at(root)?.column);

  const sections = new Map<string, Pair<unknown, unknown>>();
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const p = at(pair.key as Node);
    if (!TOP_LEVEL_KEYS.has(key)) throw new PipelineError(`unknown key: ${key}`, p?.line, p?.column);
    sections.set(key, pair);
  }
  const sectionValue = (key: string): unknown => {
    const node = sections.get(key)?.value;
    const v: unknown = node === undefined || node === null ? undefined : (node as Node).toJS(doc);
    return v ?? undefined;
  };
  const keyAt = (key: string): Position => at(sections.get(key)?.key as Node | undefined);

  const version = readVersion(sectionValue('version'), keyAt('version'));
  const description = sectionValue('description');
  const processors = readProcessors(sections.get('processors')?.value as Node | null | undefined, at, doc);

  if (sections.has('transform') && sections.has('transforms')) {
    const p = keyAt('transforms');
    throw new PipelineError('transform and transforms cannot both be set', p?.line, p?.column);
  }
  const transformKey = sections.has('transforms') ? 'transforms' : 'transform';
  const entries = readTransform(
    sections.get(transformKey)?.value as Node | null | undefined,
    at,
    doc,
    keyAt(transformKey),
  );

  let dispatcher: Dispatcher | undefined;
  if (sectionValue('dispatcher') !== undefined)
    dispatcher = compileDispatcher(sectionValue('dispatcher'), keyAt('dispatcher'));
  let suffix: SuffixTemplate | undefined;
  const suffixText = sectionValue('table_suffix');
  if (suffixText !== undefined) {
    const p = keyAt('table_suffix');
    if (typeof suffixText !== 'string') throw new PipelineError('table_suffix must be a string', p?.line, p?.column);
    suffix = new SuffixTemplate(suffixText, p);
  }

  const hasTransform = entries.length > 0;
  const rows = hasTransform
    ? new TransformRows(compileTransform(entries, version, keyAt(transformKey)), version)
    : new AutoRows(autoTimeIndex(processors, keyAt('processors')));
  let identity: Pipeline | undefined;
  return new Pipeline({
    version,
    description: typeof description === 'string' ? description : undefined,
    processors,
    rows,
    hasTransform,
    dispatcher,
    suffix,
    identity: () => {
      identity ??= identityPipeline();
      return identity;
    },
  });
}

function readVersion(v: unknown, p: Position): 1 | 2 {
  if (v === undefined || v === 1 || v === '1') return 1;
  if (v === 2 || v === '2') return 2;
  if (typeof v === 'string' && /^\s*[12]\s*$/.test(v)) return Number(v) as 1 | 2;
  throw new PipelineError(`invalid pipeline version: ${JSON.stringify(v)} (expected 1 or 2)`, p?.line, p?.column);
}

type At = (node: { range?: [number, number, number] | null } | null | undefined) => Position;
type Doc = ReturnType<typeof parseDocument>;

/**
 * Aliases resolved once, up front: the YAML library parses `*name` without its anchor (or past
 * its alias budget, a billion-laughs document) and only throws when the value is built, as a
 * ReferenceError that would otherwise escape as a server error.
 */
function checkAliases(doc: Doc, at: At): void {
  try {
    doc.toJS();
  } catch (err) {
    let where: Position;
    visit(doc, {
      Alias(_key, node) {
        if (isAlias(node) && node.resolve(doc) === undefined) {
          where = at(node);
          return visit.BREAK;
        }
        return undefined;
      },
    });
    throw new PipelineError(`invalid YAML: ${(err as Error).message}`, where?.line, where?.column);
  }
}

/** Where each key of a map node sits; `null` asks for the fallback position. */
function positionsIn(map: YAMLMap<unknown, unknown> | undefined, fallback: Position, at: At): PositionOf {
  return (key) => {
    if (key === null || map === undefined) return fallback;
    for (const pair of map.items) {
      if (isScalar(pair.key) && pair.key.value === key) return at(pair.key);
    }
    return undefined;
  };
}

function readProcessors(node: Node | null | undefined, at: At, doc: Doc): Processor[] {
  if (node === undefined || node === null || (isScalar(node) && node.value === null)) return [];
  if (!isSeq(node)) throw new PipelineError('processors must be a list', at(node)?.line, at(node)?.column);
  const out: Processor[] = [];
  for (const item of node.items) {
    const p = at(item as Node);
    if (!isMap(item) || item.items.length !== 1) {
      throw new PipelineError('each processor must be a map with one key, its name', p?.line, p?.column);
    }
    const pair = item.items[0] as Pair<unknown, unknown>;
    const name = isScalar(pair.key) ? String(pair.key.value) : '';
    const namePos = at(pair.key as Node);
    const factory = Object.hasOwn(PROCESSORS, name) ? PROCESSORS[name] : undefined;
    if (factory === undefined)
      throw new PipelineError(`Processor ${name} not supported`, namePos?.line, namePos?.column);
    const value = pair.value as Node | null;
    let raw: Record<string, unknown> = {};
    let optionsMap: YAMLMap<unknown, unknown> | undefined;
    if (isMap(value)) {
      optionsMap = value;
      raw = value.toJS(doc) as Record<string, unknown>;
    } else if (value !== null && !(isScalar(value) && value.value === null)) {
      throw new PipelineError(`Processor ${name}: options must be a map`, namePos?.line, namePos?.column);
    }
    const options = new ProcessorOptions(name, raw, positionsIn(optionsMap, namePos, at));
    const processor = factory(options);
    for (const key of Object.keys(raw)) if (!options.used.has(key)) options.fail(`unknown option: ${key}`, key);
    out.push(processor);
  }
  return out;
}

function readTransform(node: Node | null | undefined, at: At, doc: Doc, keyPos: Position): TransformEntry[] {
  if (node === undefined || node === null || (isScalar(node) && node.value === null)) return [];
  if (!isSeq(node)) throw new PipelineError('transform must be a list', keyPos?.line, keyPos?.column);
  return node.items.map((item) => {
    const p = at(item as Node);
    if (!isMap(item)) throw new PipelineError('each transform entry must be a map', p?.line, p?.column);
    return { raw: item.toJS(doc) as Record<string, unknown>, positionOf: positionsIn(item, p, at) };
  });
}
