/**
 * An `/v1/ingest` body through its pipeline, on the thread that decodes it (a shard worker): the
 * records of the body, the pipeline run, and its tables as inserts with their create options.
 * The router sends the pipeline as text (the stored version it resolved, and the texts of the
 * pipelines its dispatcher rules name); each thread compiles a text once and keeps it.
 */
import { compilePipeline } from '../../pipeline/compile.js';
import { type IdentityOptions, identityPipeline } from '../../pipeline/identity.js';
import type { Pipeline } from '../../pipeline/pipeline.js';
import { PipelineError, RecordError } from '../../pipeline/processor.js';
import { InvalidRecords, parseRecords } from '../../pipeline/records.js';
import { insertOf, insertOptionsOf } from '../../pipeline/to-inserts.js';
import { InvalidArgument } from '../errors.js';
import type { InsertOptions, TableInsert } from '../insert.js';
import { mediaTypeOf } from '../media-type.js';

/** Which pipeline a body goes through. */
export type PipelineSpec =
  | { kind: 'identity'; params: IdentityOptions }
  /** `rules`: the texts of the stored pipelines dispatcher rules name, by name (transitively). */
  | { kind: 'stored'; text: string; rules: Record<string, string> };

export interface PipelineBody {
  body: Uint8Array;
  db: string;
  table: string;
  contentType: string;
  ignoreErrors: boolean;
  skipError: boolean;
  pipeline: PipelineSpec;
}

/** Compiled pipelines by text; a handful of pipelines serve most traffic. */
const COMPILED_MAX = 64;
const compiled = new Map<string, Pipeline>();

function compiledOf(text: string): Pipeline {
  let p = compiled.get(text);
  if (p !== undefined) {
    // Most recently used last, so the first key is the one to drop.
    compiled.delete(text);
    compiled.set(text, p);
    return p;
  }
  try {
    p = compilePipeline(text);
  } catch (err) {
    if (err instanceof PipelineError) throw new InvalidArgument(`Failed to build pipeline: ${err.message}`);
    throw err;
  }
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value as string);
  compiled.set(text, p);
  return p;
}

/** The pipeline `make` returns; a pipeline that does not compile is a bad request parameter. */
function pipelineOf(make: () => Pipeline): Pipeline {
  try {
    return make();
  } catch (err) {
    if (err instanceof PipelineError) throw new InvalidArgument(`Invalid request parameter: ${err.message}`);
    throw err;
  }
}

/** What a run returns; a record that fails it (without skip_error) fails the request. */
function failing<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof RecordError || err instanceof PipelineError) {
      throw new InvalidArgument(`Failed to exec pipeline: ${err.message}`);
    }
    throw err;
  }
}

export function decodePipelineBody(request: PipelineBody): {
  inserts: TableInsert[];
  options: InsertOptions[];
  rows: number;
} {
  const buf = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
  const spec = request.pipeline;
  const nowNanos = () => BigInt(Date.now()) * 1_000_000n;
  // A text body always parses, so compiling first reports errors in the same order.
  let pipeline: Pipeline | undefined;
  if (spec.kind === 'stored' && mediaTypeOf(request.contentType) === 'text/plain') {
    pipeline = pipelineOf(() => compiledOf(spec.text));
    const plan = pipeline.textPlan();
    if (plan !== null) {
      const { insert } = failing(() =>
        plan.run(buf, request.db, request.table, { skipError: request.skipError, nowNanos }),
      );
      return insert === null
        ? { inserts: [], options: [], rows: 0 }
        : { inserts: [insert], options: [insertOptionsOf({})], rows: insert.rowCount };
    }
  }
  let records: ReturnType<typeof parseRecords>;
  try {
    records = parseRecords(buf, request.contentType, request.ignoreErrors);
  } catch (err) {
    if (err instanceof InvalidRecords) throw new InvalidArgument(`Invalid request parameter: ${err.message}`);
    throw err;
  }
  pipeline ??= pipelineOf(() => (spec.kind === 'identity' ? identityPipeline(spec.params) : compiledOf(spec.text)));
  const rules = spec.kind === 'stored' ? spec.rules : {};
  const result = failing(() =>
    pipeline.run(records, {
      skipError: request.skipError,
      nowNanos,
      resolve: (name) => (rules[name] === undefined ? undefined : compiledOf(rules[name] as string)),
    }),
  );
  const inserts = result.tables.map((out) => insertOf(request.db, request.table, out));
  return {
    inserts,
    options: result.tables.map(insertOptionsOf),
    rows: inserts.reduce((n, i) => n + i.rowCount, 0),
  };
}
