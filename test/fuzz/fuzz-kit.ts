/**
 * The harness of the in-process fuzz tests: input generators (tokens of a language, mutated valid
 * samples) and the run of a target — corpus replayed first, seeds checked accepted, then random
 * inputs, each answered or refused with the target's documented error.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { BlockCoverage, fuzzGuided } from './guided.js';

/** Text made of a language's tokens, random characters and separators, in random order. */
export function tokenText(tokens: readonly string[]): fc.Arbitrary<string> {
  return fc
    .array(
      fc.oneof(fc.constantFrom(...tokens), fc.string({ maxLength: 4 }), fc.constantFrom(' ', '\n', '\\', '"', "'")),
      {
        maxLength: 40,
      },
    )
    .map((parts) => parts.join(''));
}

/** Bytes: raw, or a valid sample with a few bytes flipped, cut or repeated. */
export function mutatedBytes(samples: readonly Uint8Array[]): fc.Arbitrary<Uint8Array> {
  const mutated = fc
    .tuple(
      fc.constantFrom(...samples),
      fc.array(fc.tuple(fc.nat(), fc.nat(255)), { maxLength: 8 }),
      fc.nat(),
      fc.boolean(),
    )
    .map(([sample, flips, cut, doubled]) => {
      let out = Uint8Array.from(sample);
      for (const [at, byte] of flips) if (out.length > 0) out[at % out.length] = byte;
      if (cut % 4 === 0) out = out.subarray(0, cut % (out.length + 1));
      if (doubled) out = Uint8Array.from([...out, ...out]);
      return out;
    });
  return fc.oneof(fc.uint8Array({ maxLength: 300 }), mutated);
}

export interface Target {
  name: string;
  /** Valid inputs the mutations start from: they must be accepted, or the fuzzing stays shallow. */
  seeds: Uint8Array[];
  input: fc.Arbitrary<Uint8Array>;
  run: (input: Uint8Array) => unknown;
  /** The errors the parser may throw for bad input. */
  expected: (err: unknown) => boolean;
}

/** Runs one input; returns a description of an unexpected failure, or null. */
export function tryOne(target: Target, input: Uint8Array, accepted = { n: 0 }): string | null {
  try {
    target.run(input);
    accepted.n++;
    return null;
  } catch (err) {
    if (target.expected(err)) return null;
    return `${target.name} threw ${err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err)} for ${JSON.stringify(asText(input))}`;
  }
}

export const asText = (bytes: Uint8Array): string => Buffer.from(bytes).toString('utf8');

/** Inputs per target of the coverage-guided run (guided.ts). */
const GUIDED_RUNS = Number(process.env.FUZZ_GUIDED_RUNS ?? 300);

/** Only the server's own code counts as coverage, not the harness's or the libraries'. */
const watched = (url: string): boolean => url.includes('/src/') && !url.includes('/node_modules/');

/**
 * One tap subtest per target: corpus `corpus/<first word of the name>/`, seeds, then `runs`
 * random inputs and `FUZZ_GUIDED_RUNS` coverage-guided ones.
 */
export function runTargets(targets: Target[], o: { runs: number; seed: number | undefined; corpus: string }): void {
  let coverage: BlockCoverage | null = null;
  t.teardown(() => coverage?.stop());
  for (const target of targets) {
    t.test(target.name, async (t) => {
      const dir = path.join(o.corpus, target.name.split(' ')[0]?.toLowerCase() ?? target.name);
      const files = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
      for (const file of files) {
        const problem = tryOne(target, fs.readFileSync(path.join(dir, file)));
        t.equal(problem, null, `corpus ${file}`);
      }
      for (const seed of target.seeds) {
        t.doesNotThrow(() => target.run(seed), `the seed ${JSON.stringify(asText(seed).slice(0, 40))} is accepted`);
      }
      const found: string[] = [];
      const accepted = { n: 0 };
      fc.assert(
        fc.property(target.input, (input) => {
          const problem = tryOne(target, input, accepted);
          if (problem !== null) found.push(problem);
          return problem === null;
        }),
        { numRuns: o.runs, ...(o.seed === undefined ? {} : { seed: o.seed }) },
      );
      t.same(
        found,
        [],
        `${o.runs} random inputs: answered or refused with the documented error (${accepted.n} accepted)`,
      );
      if (GUIDED_RUNS === 0) return;
      coverage ??= new BlockCoverage(watched);
      const guided = fuzzGuided(
        {
          seeds: [...target.seeds, ...files.map((f) => fs.readFileSync(path.join(dir, f)))],
          fresh: () => fc.sample(target.input, 1)[0] as Uint8Array,
          check: (input) => tryOne(target, input),
        },
        coverage,
        GUIDED_RUNS,
        o.seed ?? 1,
      );
      t.same(
        guided.problems,
        [],
        `${GUIDED_RUNS} coverage-guided inputs: answered or refused as documented (${guided.features} blocks, ${guided.kept.length} inputs kept)`,
      );
    });
  }
}
