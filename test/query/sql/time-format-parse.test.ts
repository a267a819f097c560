import t from 'tap';
import { parseWithPattern } from '../../../src/query/sql/functions/time-format-parse.js';

const SECOND = 1_000_000_000n;

t.test('reads chrono specifiers into UTC nanoseconds', async (t) => {
  const at = 1709287872n * SECOND; // 2024-03-01T10:11:12Z
  t.equal(parseWithPattern('2024-03-01 10:11:12', '%Y-%m-%d %H:%M:%S'), at);
  t.equal(parseWithPattern('2024-03-01T10:11:12', '%FT%T'), at);
  t.equal(parseWithPattern('Friday, March 1 2024 10:11:12 AM', '%A, %B %e %Y %I:%M:%S %p'), at);
  t.equal(parseWithPattern('2024-03-01 11:11:12 +0100', '%Y-%m-%d %H:%M:%S %z'), at);
  t.equal(parseWithPattern('2024-03-01 10:11:12.25', '%Y-%m-%d %H:%M:%S%.f'), at + 250_000_000n);
  t.equal(parseWithPattern('2024-03-01 10:11:12', '%Y-%m-%d %H:%M:%S%.f'), at, 'the fraction is optional');
  t.equal(parseWithPattern('1709287872', '%s'), at);
  t.equal(parseWithPattern('03/01/24', '%D'), 1709251200n * SECOND, 'a date alone is midnight');
});

t.test('refuses text the pattern does not describe', async (t) => {
  for (const [text, pattern] of [
    ['2024-02-30', '%Y-%m-%d'],
    ['2024-03-01 25:00', '%Y-%m-%d %H:%M'],
    ['2024-03-01x', '%Y-%m-%d'],
    ['10:11', '%H:%M'],
    ['2024-03-01', '%Y-%m-%d %q'],
  ] as const) {
    t.equal(parseWithPattern(text, pattern), null, `${text} / ${pattern}`);
  }
});
