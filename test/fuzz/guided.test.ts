/**
 * The coverage-guided loop (guided.ts) is guided: on a target whose failure sits five branches
 * deep, it finds the failure within a budget in which random inputs of the same length do not,
 * and it keeps exactly the inputs that opened a branch.
 */
import fc from 'fast-check';
import t from 'tap';
import { BlockCoverage, fuzzGuided } from './guided.js';
import { maze, Prize } from './guided-maze.js';

const BUDGET = 20_000;

const check = (input: Uint8Array): string | null => {
  try {
    maze(input);
    return null;
  } catch (err) {
    return err instanceof Prize ? 'prize' : `unexpected ${String(err)}`;
  }
};

t.test('coverage leads to a failure five branches deep', async (t) => {
  const coverage = new BlockCoverage((url) => url.includes('guided-maze'));
  t.teardown(() => coverage.stop());
  const seeds = [Uint8Array.of(0, 0, 0, 0, 0, 0)];
  const guided = fuzzGuided(
    { seeds, fresh: () => fc.sample(fc.uint8Array({ minLength: 6, maxLength: 6 }), 1)[0] as Uint8Array, check },
    coverage,
    BUDGET,
    7,
  );
  t.same(guided.problems, ['prize'], `found within ${BUDGET} inputs (after ${guided.runs})`);
  // Each kept input opened a branch: the seed, then one per level, and few besides.
  t.ok(guided.kept.length >= 5 && guided.kept.length < 40, `${guided.kept.length} inputs kept`);

  let randomFound = 0;
  for (const input of fc.sample(fc.uint8Array({ minLength: 6, maxLength: 6 }), { numRuns: BUDGET, seed: 7 })) {
    if (check(input) === 'prize') randomFound++;
  }
  t.equal(randomFound, 0, 'random inputs of the same budget do not find it');
});
