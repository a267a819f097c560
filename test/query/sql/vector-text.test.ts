/** Vector text both ways: Float32 values written as Rust's `Display` writes them, and parsed as GreptimeDB parses them. */
import t from 'tap';
import { float32Text, readVectorText, vectorText } from '../../../src/query/sql/types/vector-value.js';

t.test('float32Text writes the shortest Float32 digits without an exponent', async (t) => {
  const cases: Array<[number, string]> = [
    [1, '1'],
    [-0.5, '-0.5'],
    [0, '0'],
    [-0, '-0'],
    [Math.fround(1 / 3), '0.33333334'],
    [Math.fround(0.1), '0.1'],
    [Math.fround(3.4028235e38), '340282350000000000000000000000000000000'],
    [Math.fround(-3.4028235e38), '-340282350000000000000000000000000000000'],
    [Math.fround(1.1754944e-38), '0.000000000000000000000000000000000000011754944'],
    [Math.fround(1e-7), '0.0000001'],
    [Number.POSITIVE_INFINITY, 'inf'],
    [Number.NEGATIVE_INFINITY, '-inf'],
    [Number.NaN, 'NaN'],
  ];
  for (const [value, text] of cases) t.equal(float32Text(value), text, String(value));
});

function roundTrip(text: string, dim?: number): string {
  const v = readVectorText(text, dim);
  return typeof v === 'string' ? `error: ${v}` : vectorText(v);
}

t.test('vector text round trips, as GreptimeDB converts its VECTOR values', async (t) => {
  t.equal(roundTrip('[1.0,2.0,3]', 3), '[1,2,3]');
  t.equal(roundTrip('[0.0 , 0.0 , 0.0]', 3), '[0,0,0]');
  t.equal(roundTrip('[ ]', 0), '[]');
  t.equal(roundTrip('[inf, -Infinity, NaN, +2]'), '[inf,-inf,NaN,2]');
  t.equal(roundTrip('[1e40]'), '[inf]', 'past Float32 range reads as infinity, as Rust parses f32');
  t.equal(roundTrip('[1.0, 2.0]', 3), 'error: dimension');
  t.equal(roundTrip('[]', 3), 'error: dimension');
  for (const bad of ['1.0,2.0', '[', ']', '1.0]']) t.equal(roundTrip(bad), 'error: brackets', bad);
  for (const bad of ['[1.0, a]', '[0x10]', '[1,,2]', '[30h, 40s, 50m]']) t.equal(roundTrip(bad), 'error: element', bad);
});
