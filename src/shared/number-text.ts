/**
 * `String(v)` for a finite float, made without V8's shortest-digits search for the values metrics
 * mostly hold: integers, and decimals of at most two places (percentages, temperatures, prices,
 * latencies in ms), below 10^13 in magnitude. Query answers format every float they return (360
 * per one-series PromQL query), and this search was 6–8% of the router's time there.
 *
 * Why it is exact: when v is the double nearest k/100 (k an integer, |v| < 10^13), the shortest
 * digits that round-trip to v are k/100's without its trailing zeros. A double's rounding
 * interval is narrower than 0.01 at that magnitude, so no other number of at most two decimals
 * (and so none with fewer digits) reads back as v, and JavaScript writes plain digits there.
 */

const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : String(i)));
const PLAIN_MAX = 1e13;

export function numberText(v: number): string {
  if (v > -PLAIN_MAX && v < PLAIN_MAX) {
    const k = Math.round(v * 100);
    // k / 100 is the double nearest k/100 (one correctly rounded division); 0 keeps its sign via String.
    if (k !== 0 && k / 100 === v) {
      const a = k < 0 ? -k : k;
      const cents = a % 100;
      const whole = (a - cents) / 100;
      const text =
        cents === 0
          ? String(whole)
          : cents % 10 === 0
            ? `${whole}.${cents / 10}`
            : `${whole}.${TWO_DIGITS[cents] as string}`;
      return k < 0 ? `-${text}` : text;
    }
  }
  return String(v);
}
