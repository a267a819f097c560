import t from 'tap';
import { jsonString } from '../../src/shared/json-value.js';

t.test('every control character is escaped, so stored JSON text parses back', async (t) => {
  const all = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');
  const values = [all, 'plain', 'quote " and \\ backslash', '\u2028\u2029', 'é🙂'];
  values.forEach((value, i) => {
    const text = jsonString(value);
    // Messages name the case by number: raw U+2028 in a test name would break TAP's lines.
    t.equal(JSON.parse(text), value, `case ${i} round-trips`);
    t.notMatch(text, /[\u0000-\u001f]/, `case ${i} has no raw control character`);
  });
  t.equal(jsonString('\u0001\n'), '"\\u0001\\n"');
});
