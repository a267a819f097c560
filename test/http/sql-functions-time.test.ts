/**
 * current_date/today, make_date, make_time, to_date, to_char, to_local_time and timezone() over
 * HTTP. Dates print as days, times of day as their unit since midnight.
 */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const cases: FunctionCase[] = [
  [
    "SELECT make_date(2024, 2, 29) = DATE '2024-02-29', make_date(1970, 1, 1), make_date(NULL, 1, 1)",
    [[true, 0, null]],
  ],
  ['SELECT make_date(2023, 2, 29)', { status: 500, code: 3001, message: 'Unable to parse date from 2023, 2, 29' }],
  ['SELECT make_date(2023, 13, 1)', { status: 500, code: 3001 }],
  [
    "SELECT to_date('2024-03-01') = DATE '2024-03-01', to_date('2024-03-01T10:00:00Z') = DATE '2024-03-01', to_date(19783) = DATE '2024-03-01', to_date(NULL)",
    [[true, true, true, null]],
  ],
  ["SELECT to_date('yesterday')", { status: 500, code: 3001, message: "Error parsing 'yesterday' as date" }],
  [
    "SELECT to_char(TIMESTAMP '2024-03-01 10:11:12', '%Y/%m/%d %H:%M:%S'), to_char(DATE '2024-03-01', '%d.%m.%Y'), to_char(NULL, '%Y')",
    [['2024/03/01 10:11:12', '01.03.2024', null]],
  ],
  ["SELECT to_char(arrow_cast(1709287872123, 'Timestamp(Millisecond, None)'), '%H:%M:%S%.3f')", [['10:11:12.123']]],
  ['SELECT current_date() = today(), current_date() = CAST(now() AS DATE)', [[true, true]]],
  ['SELECT timezone()', [['UTC']]],
  [
    "SELECT to_timestamp_millis('03/01/2024', '%m/%d/%Y'), to_timestamp_seconds('2024-03-01 10:11:12 +01:00', '%Y-%m-%d %H:%M:%S %:z'), to_timestamp_micros('01 Mar 2024 10:11:12.5', '%d %b %Y %H:%M:%S%.f')",
    [[1709251200000, 1709284272, 1709287872500000]],
  ],
  [
    "SELECT to_timestamp_nanos('1709287872', '%s'), to_timestamp_millis('2024-061 01:02:03 PM', '%Y-%j %I:%M:%S %p'), to_timestamp_millis(NULL, '%Y'), to_timestamp_millis('2024', NULL)",
    [[1709287872000000000, 1709298123000, null, null]],
  ],
  ["SELECT to_timestamp_millis('2024/03/01', 'bad', '%Y/%m/%d')", [[1709251200000]]],
  [
    "SELECT to_timestamp('2024-02-30', '%Y-%m-%d')",
    { status: 500, code: 3001, message: "Error parsing timestamp from '2024-02-30' using format '%Y-%m-%d'" },
  ],
  [
    "SELECT to_date('03/01/2024', '%m/%d/%Y') = DATE '2024-03-01', to_date('2024.03.01', '%d/%m/%Y', '%Y.%m.%d') = DATE '2024-03-01'",
    [[true, true]],
  ],
  [
    "SELECT make_time(13, 23, 1), CAST(make_time('23', '01', '31') AS STRING), make_time(NULL, 1, 1), arrow_typeof(make_time(1, 2, 3))",
    [[48181, '23:01:31', null, 'Time32(s)']],
  ],
  ['SELECT make_time(25, 0, 0)', { status: 500, code: 3001, message: "Hour value '25' is out of range" }],
  ['SELECT make_time(24, 0, 0)', { status: 500, code: 3001, message: 'Unable to parse time from 24, 0, 0' }],
  ['SELECT make_time(1, -1, 0)', { status: 500, code: 3001, message: "Minute value '-1' is out of range" }],
  ["SELECT make_time('x', 0, 0)", { status: 500, code: 3001, message: "Cannot cast string 'x'" }],
  ['SELECT make_time(1.5, 0, 0)', NO_SIGNATURE],
  [
    "SELECT to_local_time(TIMESTAMP '2024-04-01 00:00:20'), arrow_typeof(to_local_time(arrow_cast(0, 'Timestamp(Second, None)'))), to_local_time(NULL), date_bin(INTERVAL '1 day', to_local_time(TIMESTAMP '2024-04-01 00:00:20'))",
    [[1711929620000, 'Timestamp(s)', null, 1711929600000]],
  ],
  ["SELECT to_local_time('2024-01-01')", NO_SIGNATURE],
  ["SELECT to_char(1, '%Y')", NO_SIGNATURE],
  ['SELECT make_date(2024, 1)', NO_SIGNATURE],
  ['SELECT today(1)', NO_SIGNATURE],
];

t.test('date and time functions', (t) => checkFunctionCases(t, cases));
