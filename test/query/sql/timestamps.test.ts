import t from 'tap';
import {
  civilFromDays,
  daysFromCivil,
  formatTimestamp,
  isValidTimezone,
  parseTimestampNanos,
} from '../../../src/query/sql/types/timestamps.js';

const ms = (s: string, tz = 'UTC'): bigint | null => {
  const n = parseTimestampNanos(s, tz);
  return n === null ? null : n / 1_000_000n;
};

t.test('days from civil dates round-trip across centuries and leap days', async (t) => {
  for (const [y, m, d] of [
    [1970, 1, 1],
    [2000, 2, 29],
    [1900, 3, 1],
    [1, 1, 1],
    [9999, 12, 31],
    [1969, 12, 31],
  ] as const) {
    t.same(civilFromDays(daysFromCivil(y, m, d)), { year: y, month: m, day: d });
  }
  t.equal(daysFromCivil(1970, 1, 1), 0);
  t.equal(daysFromCivil(2023, 1, 1), 19358);
});

t.test('parses the space and T forms with optional seconds and fractions', async (t) => {
  t.equal(ms('2023-01-01 00:00:00'), 1672531200000n);
  t.equal(ms('2023-01-01T00:00:00'), 1672531200000n);
  t.equal(ms('2023-01-01 00:00'), 1672531200000n);
  t.equal(ms('2023-01-01'), 1672531200000n);
  t.equal(parseTimestampNanos('2023-01-01 00:00:00.123456789', 'UTC'), 1672531200123456789n);
  t.equal(ms('   2023-01-01 00:00:01   '), 1672531201000n);
});

t.test('an explicit zone overrides the session zone', async (t) => {
  t.equal(ms('2023-03-01T06:35:02Z', 'Asia/Shanghai'), 1677652502000n);
  t.equal(ms('2023-03-01 08:00:00+0000', 'Asia/Shanghai'), 1677657600000n);
  t.equal(ms('2000-01-01 00:00:00+00:00', 'Asia/Shanghai'), 946684800000n);
  t.equal(ms('2023-01-01 08:00:00+08:00'), 1672531200000n);
});

t.test('zone-less text is local time of the session zone', async (t) => {
  t.equal(ms('2024-01-30 00:01:01', 'Asia/Shanghai'), ms('2024-01-29 16:01:01'));
  t.equal(ms('2024-01-30 00:01:01', '+08:00'), ms('2024-01-29 16:01:01'));
  t.equal(ms('2024-07-01 12:00:00', 'America/New_York'), ms('2024-07-01 16:00:00'));
  t.equal(ms('2024-01-01 12:00:00', 'America/New_York'), ms('2024-01-01 17:00:00'));
});

t.test('invalid calendar dates and times are refused', async (t) => {
  for (const s of [
    'blabla',
    '1993-20-14 00:00:00',
    '1993-08-99 00:00:00',
    '1993-02-29 00:00:00',
    '1900-02-29 00:00:00',
    '02-02-1992 00:00:00',
    '1900-1-1 59:59:23',
    '1900a01a01 00:00:00',
    '1900-1-1 00;00;00',
    '2017-07-23A13:10:11',
  ]) {
    t.equal(parseTimestampNanos(s, 'UTC'), null, s);
  }
  t.not(parseTimestampNanos('1992-02-29 00:00:00', 'UTC'), null);
});

t.test('formats timestamps in UTC with the unit fraction only when non-zero', async (t) => {
  t.equal(formatTimestamp(27n, 's'), '1970-01-01T00:00:27');
  t.equal(formatTimestamp(11n, 'ms'), '1970-01-01T00:00:00.011');
  t.equal(formatTimestamp(-3n, 'ms'), '1969-12-31T23:59:59.997');
  t.equal(formatTimestamp(1_500n, 'ms'), '1970-01-01T00:00:01.500');
  t.equal(formatTimestamp(1786248000123456789n, 'ns'), '2026-08-09T04:00:00.123456789');
});

t.test('knows valid time zones', async (t) => {
  t.ok(isValidTimezone('UTC'));
  t.ok(isValidTimezone('+08:00'));
  t.ok(isValidTimezone('Asia/Shanghai'));
  t.notOk(isValidTimezone('Mars/Olympus'));
});
