import t from 'tap';
import {
  formatDuration,
  formatSize,
  parseDurationMs,
  parseSizeBytes,
  sizeTomlValue,
  tryDurationMs,
  trySizeBytes,
} from '../../src/shared/size-duration.js';

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;
const TIB = 1024 * GIB;
const PIB = 1024 * TIB;

t.test('reads every size unit as binary, like GreptimeDB', async (t) => {
  const cases: [string, number][] = [
    ['0', 0],
    ['1', 1],
    ['23', 23],
    ['1024B', KIB],
    ['512KB', 512 * KIB],
    ['512KiB', 512 * KIB],
    ['512K', 512 * KIB],
    ['64MB', 64 * MIB],
    ['64MiB', 64 * MIB],
    ['64M', 64 * MIB],
    ['2GB', 2 * GIB],
    ['2 GiB', 2 * GIB],
    ['0.5TB', TIB / 2],
    ['1TiB', TIB],
    ['1PiB', PIB],
    [' 0.5 PB', PIB / 2],
    ['0.5MB', MIB / 2],
    ['1e6B', 1_000_000],
    ['8e7', 80_000_000],
    ['1e-1MB', Math.trunc(MIB / 10)],
    ['0e+10MB', 0],
    ['0KiB', 0],
  ];
  for (const [text, bytes] of cases) t.equal(parseSizeBytes(text), bytes, text);
});

t.test('rejects sizes GreptimeDB rejects, and negative ones', async (t) => {
  for (const text of [
    '',
    ' ',
    '64XB',
    '0.5kb',
    '0.5kB',
    '0.5Kb',
    '0.5k',
    'b',
    'gb',
    '1b',
    'B',
    '1K24B',
    ' 5_KB',
    '4B7',
    '5M_',
    '-1',
    '-1MB',
    'Infinity',
    '0x10',
    '１MB',
  ]) {
    t.equal(trySizeBytes(text), undefined, JSON.stringify(text));
    t.throws(() => parseSizeBytes(text), RangeError, JSON.stringify(text));
  }
});

t.test('formats sizes with the largest exact binary unit', async (t) => {
  t.equal(formatSize(0), '0KiB');
  t.equal(formatSize(2 * KIB), '2KiB');
  t.equal(formatSize(64 * MIB), '64MiB');
  t.equal(formatSize(5 * GIB), '5GiB');
  t.equal(formatSize(7 * TIB), '7TiB');
  t.equal(formatSize(11 * PIB), '11PiB');
  t.equal(formatSize(1536 * KIB), '1536KiB');
  t.equal(formatSize(512), '512B');
  t.equal(sizeTomlValue(512), 512, 'GreptimeDB writes odd sizes as a bare integer');
  t.equal(sizeTomlValue(64 * MIB), '64MiB');
  t.equal(sizeTomlValue(0), '0KiB');
});

t.test('reads humantime durations into milliseconds', async (t) => {
  const cases: [string, number][] = [
    ['0s', 0],
    ['30s', 30_000],
    ['500ms', 500],
    ['1m 30s', 90_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['2h 15m', 8_100_000],
    ['2h 37min', 9_420_000],
    ['20 min 17 nsec ', 1_200_000 + 17e-6],
    ['1500us', 1.5],
    ['163µs', 0.163],
    ['1day', 86_400_000],
    ['1week', 604_800_000],
    ['1month', 2_630_016_000],
    ['12M', 12 * 2_630_016_000],
    ['1year', 31_557_600_000],
    ['7hrs', 25_200_000],
    ['5secs', 5000],
  ];
  for (const [text, ms] of cases) t.equal(parseDurationMs(text), ms, text);
});

t.test('rejects durations without a unit, with an unknown unit, signs or fractions', async (t) => {
  for (const text of ['', '  ', '0', '30', '30x', '1.5s', '-1s', '+1s', 's', '1m sec', '10000000000000000000y']) {
    t.equal(tryDurationMs(text), undefined, JSON.stringify(text));
    t.throws(() => parseDurationMs(text), RangeError, JSON.stringify(text));
  }
});

t.test('formats durations as humantime and reads them back exactly', async (t) => {
  t.equal(formatDuration(0), '0s');
  t.equal(formatDuration(30_000), '30s');
  t.equal(formatDuration(90_000), '1m 30s');
  t.equal(formatDuration(500), '500ms');
  t.equal(formatDuration(3_600_000), '1h');
  t.equal(formatDuration(86_400_000 + 7_200_000), '1day 2h');
  t.equal(formatDuration(2 * 86_400_000), '2days');
  t.equal(formatDuration(1.5), '1ms 500us');
  for (const ms of [0, 1, 999, 1000, 59_999, 61_000, 3_599_000, 86_399_999, 31_557_600_000 + 1234, 7 * 86_400_000]) {
    t.equal(parseDurationMs(formatDuration(ms)), ms, `${ms}ms`);
  }
});
