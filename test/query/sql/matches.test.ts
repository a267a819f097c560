/** `matches(text, query)`: GreptimeDB's full-text query syntax, table-driven. */
import t from 'tap';
import { compileMatchesQuery, matchesQuery } from '../../../src/query/sql/functions/matches.js';

const TEXTS = {
  apple: 'I ate an Apple today',
  fruit: 'apple is a fruit',
  obama: 'Barack Obama spoke',
  reverse: 'Obama, Barack',
  quote: 'he said "hi there" twice',
  none: 'nothing to see',
};

const CASES: Array<[string, Array<keyof typeof TEXTS>]> = [
  ['apple', ['apple', 'fruit']],
  ['APPLE', ['apple', 'fruit']],
  ['Barack Obama', ['obama', 'reverse']],
  ['Barack OR Obama', ['obama', 'reverse']],
  ['"Barack Obama"', ['obama']],
  ['apple -fruit', ['apple']],
  ['+apple +fruit', ['fruit']],
  ['apple AND fruit', ['fruit']],
  ['apple AND fruit OR obama', ['fruit', 'obama', 'reverse']],
  ['(+apple +fruit) obama', ['fruit', 'obama', 'reverse']],
  ['-apple', ['obama', 'reverse', 'quote', 'none']],
  ['"hi there"', ['quote']],
  ['"there hi"', []],
  ['appl', []],
];

t.test('query semantics', async (t) => {
  for (const [query, want] of CASES) {
    const node = compileMatchesQuery(query);
    const got = (Object.keys(TEXTS) as Array<keyof typeof TEXTS>).filter((k) => matchesQuery(node, TEXTS[k]));
    t.same(got, want, query);
  }
});

t.test('unreadable queries are planning errors', async (t) => {
  for (const q of ['"open', '(a b', 'a)', '+', '""']) t.throws(() => compileMatchesQuery(q), { code: 3000 }, q);
});
