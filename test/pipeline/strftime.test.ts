import t from 'tap';
import { compileStrftime, parseStrftime, timeZoneOffset } from '../../src/pipeline/strftime.js';

const S = 1_000_000_000n;
const cases: [string, string, bigint | undefined, string?][] = [
  ['%Y-%m-%dT%H:%M:%S%.3fZ', '2024-06-27T06:13:36.991Z', 1719468816991000000n],
  ['%Y-%m-%dT%H:%M:%S%.3fZ', '2024-06-27T06:13:36.991Z', 1719440016991000000n, 'Asia/Shanghai'],
  ['%Y-%m-%dT%H:%M:%S', '2024-06-27T06:13:36.991Z', undefined], // trailing input
  ['%Y-%m-%dT%H:%M:%S%.3f', '2024-06-27T06:13:36', 1719468816n * S], // the fraction is optional
  ['%Y-%m-%dT%H:%M:%S%.3f', '2024-06-27T06:13:36.5', 1719468816500000000n], // any digit count
  ['%Y-%m-%dT%H:%M:%S%.f', '2024-06-27T06:13:36.123456789123', 1719468816123456789n],
  ['%Y-%m-%dT%H:%M:%S%.3f', '2024-06-27T06:13:36.', undefined],
  ['%Y-%m-%dT%H:%M:%S.%3f', '2024-06-27T06:13:36.12', undefined], // exactly 3 digits
  ['%Y-%m-%dT%H:%M:%S.%6f', '2024-06-27T06:13:36.123456', 1719468816123456000n],
  ['%Y-%m-%dT%H:%M:%S.%f', '2024-06-27T06:13:36.5', 1719468816000000005n], // %f counts nanoseconds
  ['%Y-%m-%d %H:%M:%S%z', '2024-05-25 20:16:37+0800', 1716639397n * S],
  ['%Y-%m-%d %H:%M:%S%:z', '2024-05-25 20:16:37-01:30', 1716673597n * S],
  ['%Y-%m-%d %H:%M:%S%z', '2024-05-25 20:16:37Z', undefined],
  ['%Y-%m-%d %H:%M:%S%#z', '2024-05-25 20:16:37Z', 1716668197n * S],
  ['%Y-%m-%d %H:%M:%S%#z', '2024-05-25 20:16:37+08', 1716639397n * S],
  ['%d/%b/%Y:%H:%M:%S %z', '25/May/2024:20:16:37 +0800', 1716639397n * S],
  ['%d %B %Y %H:%M', '25 may 2024 20:16', 1716668160n * S],
  ['%d %B %Y %H:%M', '25 September 2024 20:16', 1727295360n * S],
  ['%a, %d %b %Y %T %Z', 'Sat, 25 May 2024 20:16:37 UTC', 1716668197n * S],
  ['%a, %d %b %Y %T', 'Mon, 25 May 2024 20:16:37', undefined], // wrong weekday
  ['%A %F %R', 'Saturday 2024-05-25 20:16', 1716668160n * S],
  ['%D %I:%M %p', '05/25/24 08:16 PM', 1716668160n * S],
  ['%D %I:%M %p', '05/25/24 12:16 am', 1716596160n * S],
  ['%Y-%m-%d %I:%M', '2024-05-25 08:16', undefined], // %I needs %p
  ['%y-%m-%d %H:%M', '70-01-01 00:00', 0n], // chrono's pivot: 70..99 → 19xx
  ['%y-%m-%d %H:%M', '69-01-01 00:00', 3124224000n * S],
  ['%Y-%j %H:%M', '2024-060 00:00', 1709164800n * S], // Feb 29
  ['%e.%m.%Y %k:%M', ' 5.1.2024  7:05', 1704438300n * S],
  ['%s', '1716668197', 1716668197n * S],
  ['%s%.3f', '1716668197.250', 1716668197250000000n],
  ['%Y-%m-%d  %H:%M', '2024-05-25\t20:16', 1716668160n * S], // whitespace matches whitespace
  ['%Y-%m-%d %H:%M', '2024-02-30 20:16', undefined],
  ['%Y-%m-%d %H:%M', '2024-05-25 24:00', undefined],
  ['%Y-%m-%d', '2024-05-25', undefined], // no time: chrono refuses a NaiveDateTime
  ['100%% %Y-%m-%d %H:%M', '100% 2024-05-25 20:16', 1716668160n * S],
  ['%Y-%m-%d %H:%M:%S', '1960-01-01 00:00:00', -315619200n * S],
  ['%Y-%m-%d %H:%M:%S', '2024-03-10 12:00:00', 1710086400n * S, 'America/New_York'], // EDT
  ['%Y-%m-%d %H:%M:%S', '2024-01-10 12:00:00', 1704906000n * S, 'America/New_York'], // EST
  ['%Y-%m-%d %H:%M:%S%z', '2024-01-10 12:00:00+0000', 1704888000n * S, 'America/New_York'], // offset wins
];

for (const [format, input, expected, zone] of cases) {
  t.test(`${format} ← ${JSON.stringify(input)}${zone ? ` in ${zone}` : ''}`, async (t) => {
    t.equal(parseStrftime(compileStrftime(format), input, zone ? timeZoneOffset(zone) : undefined), expected);
  });
}

t.test('bad formats and zones', async (t) => {
  for (const f of ['%Q', '%.2f', '%:y']) t.throws(() => compileStrftime(f), /unsupported date format specifier/, f);
  t.throws(() => timeZoneOffset('Mars/Base'), RangeError);
  t.equal(timeZoneOffset('UTC'), undefined);
});
