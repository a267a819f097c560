import t from 'tap';
import * as trig from '../../../../src/query/promql/functions/trig.js';
import { close } from './series-window.js';

// Expected values from Prometheus' trig_functions tests (inputs 10 and 20).
const cases: [(v: number) => number, number, number][] = [
  [trig.sin, 10, -0.5440211108893699],
  [trig.sin, 20, 0.9129452507276277],
  [trig.cos, 10, -0.8390715290764524],
  [trig.tan, 20, 2.2371609442247427],
  [trig.asin, -0.1, -0.10016742116155944],
  [trig.acos, -0.1, 1.670963747956456],
  [trig.atan, 10, 1.4711276743037345],
  [trig.sinh, 20, 2.4258259770489514e8],
  [trig.cosh, 10, 11013.232920103324],
  [trig.tanh, 10, 0.9999999958776927],
  [trig.asinh, 10, 2.99822295029797],
  [trig.acosh, 20, 3.6882538673612966],
  [trig.atanh, 0.5, 0.5493061443340549],
  [trig.deg, Math.PI, 180],
  [trig.rad, 180, Math.PI],
];

t.test('trigonometric functions match Prometheus', async (t) => {
  for (const [fn, input, expected] of cases) {
    t.ok(close(fn(input), expected), `${fn.name}(${input}) = ${fn(input)}`);
  }
});

t.test('out-of-domain inputs and NaN give NaN', async (t) => {
  t.ok(Number.isNaN(trig.asin(9.9)));
  t.ok(Number.isNaN(trig.acos(-9.9)));
  t.ok(Number.isNaN(trig.acosh(0.5)));
  t.ok(Number.isNaN(trig.atanh(2)));
  for (const fn of Object.values(trig)) t.ok(Number.isNaN(fn(Number.NaN)), fn.name);
  t.equal(trig.atanh(1), Number.POSITIVE_INFINITY);
});
