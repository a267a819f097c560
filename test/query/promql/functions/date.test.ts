import t from 'tap';
import * as date from '../../../../src/query/promql/functions/date.js';

// 2006-01-02 22:04:05 UTC, a Monday.
const reference = 1136239445;

t.test('date parts of a timestamp in UTC', async (t) => {
  t.equal(date.year(reference), 2006);
  t.equal(date.month(reference), 1);
  t.equal(date.dayOfMonth(reference), 2);
  t.equal(date.dayOfYear(reference), 2);
  t.equal(date.dayOfWeek(reference), 1);
  t.equal(date.hour(reference), 22);
  t.equal(date.minute(reference), 4);
  t.equal(date.daysInMonth(reference), 31);
});

t.test('the epoch is Thursday 1970-01-01 00:00', async (t) => {
  t.same(
    [date.year, date.month, date.dayOfMonth, date.dayOfYear, date.dayOfWeek, date.hour, date.minute].map((f) => f(0)),
    [1970, 1, 1, 1, 4, 0, 0],
  );
});

t.test('year boundaries, leap days and month lengths', async (t) => {
  t.equal(date.year(1230767999), 2008);
  t.equal(date.year(1230768000), 2009);
  t.equal(date.month(1456790399), 2, '2016-02-29 23:59:59');
  t.equal(date.dayOfMonth(1456790399), 29);
  t.equal(date.dayOfYear(1483191420), 366, '2016-12-31');
  t.equal(date.dayOfYear(1672493820), 365, '2022-12-31');
  t.equal(date.daysInMonth(1454284800), 29, 'February 2016');
  t.equal(date.daysInMonth(1485907200), 28, 'February 2017');
  t.equal(date.daysInMonth(951782400), 29, 'February 2000 (divisible by 400)');
  t.equal(date.daysInMonth(4105123200), 28, 'February 2100 (divisible by 100)');
});

t.test('agrees with Date over a wide spread of instants, including before 1970', async (t) => {
  let mismatches = 0;
  for (let seconds = -5e9; seconds < 5e9; seconds += 7_777_777) {
    const d = new Date(seconds * 1000);
    const expected = [
      d.getUTCFullYear(),
      d.getUTCMonth() + 1,
      d.getUTCDate(),
      d.getUTCDay(),
      d.getUTCHours(),
      d.getUTCMinutes(),
      new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate(),
    ];
    const actual = [
      date.year(seconds),
      date.month(seconds),
      date.dayOfMonth(seconds),
      date.dayOfWeek(seconds),
      date.hour(seconds),
      date.minute(seconds),
      date.daysInMonth(seconds),
    ];
    if (expected.join() !== actual.join()) mismatches++;
  }
  t.equal(mismatches, 0);
});

t.test('fractional seconds truncate and non-finite input gives NaN', async (t) => {
  t.equal(date.minute(59.9), 0);
  t.equal(date.minute(60.1), 1);
  t.ok(Number.isNaN(date.year(Number.NaN)));
  t.ok(Number.isNaN(date.hour(Number.POSITIVE_INFINITY)));
});
