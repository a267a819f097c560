/**
 * The series index (src/shard/series-index.ts) against a model: for random keys and random
 * matchers, the candidates include every series that passes all matchers (the scan relies on
 * that), and for matchers that name their values (equality, IN) they are exactly those series.
 * A matcher that accepts a series without its tag narrows nothing.
 */
import t from 'tap';
import { SeriesIndex } from '../../src/shard/series-index.js';
import type { SeriesMatcher } from '../../src/shared/scan.js';
import { seriesKeyOf } from '../../src/shared/series-key.js';
import { prng } from '../helpers/prng.js';

const rand = prng(Number(process.env.SERIES_INDEX_SEED ?? 11));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
const VALUES = ['', 'a', 'b', 'c', 'host-1', 'host-10', 'x,y', 'é'];

function tagsOf(): Map<number, string> {
  const tags = new Map<number, string>();
  for (const id of [1, 2, 3, 7]) if (rand() < 0.8) tags.set(id, pick(VALUES));
  return tags;
}

function matcherOf(): SeriesMatcher {
  const id = pick([1, 2, 3, 7, 9]);
  const kind = pick(['eq', 'in', 'regex', 'neq']);
  if (kind === 'eq' || kind === 'in') {
    const values = kind === 'eq' ? [pick(VALUES)] : [pick(VALUES), pick(VALUES)];
    const set = new Set(values);
    return { id, values, test: (v) => set.has(v), missingMatches: false };
  }
  const not = pick(VALUES);
  const test = kind === 'neq' ? (v: string) => v !== not : (v: string) => v.startsWith('host');
  return { id, test, missingMatches: test('') };
}

t.test('candidates hold every passing series, exactly for value lists', async (t): Promise<void> => {
  let checked = 0;
  for (let round = 0; round < 200; round++) {
    const unique = new Map<string, Map<number, string>>();
    for (let i = 0; i < 1 + Math.floor(rand() * 60); i++) {
      const tags = tagsOf();
      const ids = [...tags.keys()].sort((a, b) => a - b);
      unique.set(
        seriesKeyOf(
          ids,
          ids.map((id) => tags.get(id) as string),
        ),
        tags,
      );
    }
    const keys = [...unique.keys()].sort();
    const index = new SeriesIndex(keys);
    const matchers = Array.from({ length: 1 + Math.floor(rand() * 3) }, matcherOf);
    const passes = (k: string): boolean => {
      const tags = unique.get(k) as Map<number, string>;
      return matchers.every((m) => (tags.has(m.id) ? m.test(tags.get(m.id) as string) : m.missingMatches));
    };
    const want = keys.flatMap((k, i) => (passes(k) ? [i] : []));
    const got = index.candidates(matchers);
    if (matchers.every((m) => m.missingMatches)) {
      if (got !== null) {
        t.fail(`round ${round}: no matcher can narrow, yet candidates came`);
        return;
      }
      continue;
    }
    const list = [...(got ?? [])];
    if (list.some((p, i) => i > 0 && p <= (list[i - 1] as number))) {
      t.fail(`round ${round}: not ascending`);
      return;
    }
    const missing = want.filter((p) => !list.includes(p));
    if (missing.length > 0) {
      t.fail(`round ${round}: candidates miss ${missing} for ${JSON.stringify(keys)}`);
      return;
    }
    const exact = matchers.every((m) => m.values !== undefined);
    if (exact && list.length !== want.length) {
      t.fail(`round ${round}: value lists should be exact: ${JSON.stringify({ keys, list, want, m: matchers })}`);
      return;
    }
    checked++;
  }
  t.ok(checked > 100, `${checked} rounds checked against the model`);
});
