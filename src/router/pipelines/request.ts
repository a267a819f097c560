/**
 * What `/v1/ingest` and the dry run share: the pipeline a request names (stored, or a built-in),
 * its records, and running it with every pipeline failure turned into the request's 400.
 */
import { identityPipeline } from '../../pipeline/identity.js';
import type { RunResult } from '../../pipeline/output.js';
import type { Pipeline } from '../../pipeline/pipeline.js';
import { PipelineError, RecordError } from '../../pipeline/processor.js';
import { InvalidRecords, parseRecords } from '../../pipeline/records.js';
import type { PipelineRecord } from '../../pipeline/value.js';
import { InvalidArgument } from '../../shared/errors.js';
import type { PipelineSpec } from '../../shared/ingest/pipeline-decode.js';
import type { PipelineStore, StoredPipeline } from './store.js';
import { parseVersion } from './version.js';

export const IDENTITY_PIPELINE = 'greptime_identity';
const TRUTHY = new Set(['true', '1', 'yes', 'on', 't']);

export function invalidParameter(message: string): InvalidArgument {
  return new InvalidArgument(`Invalid request parameter: ${message}`);
}

export function isTruthy(value: string | null | undefined): boolean {
  return value !== null && value !== undefined && TRUTHY.has(value.trim().toLowerCase());
}

/** A `?version=` text as nanoseconds (undefined: latest). */
export function versionOf(text: string | null | undefined): bigint | undefined {
  if (text === null || text === undefined || text === '' || text === 'latest') return undefined;
  const version = parseVersion(text);
  if (version === null) throw invalidParameter(`invalid pipeline version: ${text}`);
  return version;
}

export interface IdentityParams {
  maxNestedLevels?: number | undefined;
  customTimeIndex?: string | undefined;
  ignoreErrors?: boolean | undefined;
  tagsExcept?: readonly string[] | undefined;
}

/** The pipeline named `name` at `version`: a built-in, or a stored one (400 when there is none). */
export async function pipelineNamed(
  store: PipelineStore,
  name: string,
  version: bigint | undefined,
  identity: IdentityParams,
): Promise<Pipeline> {
  if (name === IDENTITY_PIPELINE) {
    try {
      return identityPipeline(identity);
    } catch (err) {
      if (err instanceof PipelineError) throw invalidParameter(err.message);
      throw err;
    }
  }
  return (await storedNamed(store, name, version)).pipeline;
}

/** A stored pipeline by name and version: 400 when the name is reserved or nothing is stored under it. */
async function storedNamed(store: PipelineStore, name: string, version: bigint | undefined): Promise<StoredPipeline> {
  if (name.startsWith('greptime_')) throw invalidParameter(`pipeline ${name} is only for its own endpoint`);
  const stored = await compiled(() => store.get(name, version));
  if (!stored) {
    throw new InvalidArgument(
      `Pipeline not found, name: ${name}, version: ${version === undefined ? 'latest' : version}`,
    );
  }
  return stored;
}

/** Dispatcher rules that name pipelines naming further ones: followed this deep at most. */
const RULE_DEPTH_MAX = 8;

/**
 * The pipeline a request names, as a decoder thread needs it (src/shared/ingest/pipeline-decode.ts):
 * the built-in's parameters, or the stored text with the texts of every stored pipeline its
 * dispatcher rules name. 400 when the name is reserved or nothing is stored under it.
 */
export async function pipelineSpecOf(
  store: PipelineStore,
  name: string,
  version: bigint | undefined,
  identity: IdentityParams,
): Promise<PipelineSpec> {
  if (name === IDENTITY_PIPELINE) {
    await pipelineNamed(store, name, version, identity); // checks the parameters
    return { kind: 'identity', params: identity };
  }
  const stored = await storedNamed(store, name, version);
  const rules: Record<string, string> = {};
  let names = stored.pipeline.ruleNames();
  for (let depth = 0; depth < RULE_DEPTH_MAX && names.length > 0; depth++) {
    const next: string[] = [];
    for (const rule of names) {
      if (rules[rule] !== undefined) continue;
      const found = await compiled(() => store.get(rule));
      if (!found) continue; // its records fail with "Pipeline not found" when they reach it
      rules[rule] = found.text;
      next.push(...found.pipeline.ruleNames());
    }
    names = next;
  }
  return { kind: 'stored', text: stored.text, rules };
}

/** Runs a store call that may compile a stored pipeline, failing as a 400 if it cannot. */
async function compiled<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof PipelineError) throw new InvalidArgument(`Failed to build pipeline: ${err.message}`);
    throw err;
  }
}

/** The records of a body as its content type says (400 on a bad body or type). */
export function recordsOf(body: Buffer, contentType: string | undefined, ignoreErrors: boolean): PipelineRecord[] {
  try {
    return parseRecords(body, contentType ?? '', ignoreErrors);
  } catch (err) {
    if (err instanceof InvalidRecords) throw invalidParameter(err.message);
    throw err;
  }
}

/** Runs `pipeline`; a record that fails (without `skipError`) fails the request with a 400. */
export async function runPipeline(
  store: PipelineStore,
  pipeline: Pipeline,
  records: PipelineRecord[],
  skipError: boolean,
): Promise<RunResult> {
  await store.ready();
  try {
    return pipeline.run(records, {
      skipError,
      nowNanos: () => BigInt(Date.now()) * 1_000_000n,
      resolve: (name) => store.getLoaded(name),
    });
  } catch (err) {
    if (err instanceof RecordError || err instanceof PipelineError) {
      throw new InvalidArgument(`Failed to exec pipeline: ${err.message}`);
    }
    throw err;
  }
}
