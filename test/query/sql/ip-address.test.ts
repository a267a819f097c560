import t from 'tap';
import {
  formatIpv4,
  formatIpv6,
  maskBytes,
  parseIpv4,
  parseIpv6,
} from '../../../src/query/sql/functions/ip-address.js';

t.test('IPv4 text parses strictly, as Rust does', async (t) => {
  t.equal(parseIpv4('192.168.0.1'), 3232235521);
  t.equal(parseIpv4('0.0.0.0'), 0);
  for (const bad of ['256.0.0.1', '1.2.3', '01.2.3.4', '1.2.3.4.5', ' 1.2.3.4', '']) t.equal(parseIpv4(bad), null, bad);
  t.equal(formatIpv4(4294967295), '255.255.255.255');
});

t.test('IPv6 text round-trips through the canonical form', async (t) => {
  const cases: Array<[string, string]> = [
    ['2001:DB8::1', '2001:db8::1'],
    ['::', '::'],
    ['::1', '::1'],
    ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['1:0:2:3:4:5:6:7', '1:0:2:3:4:5:6:7'],
    ['::ffff:192.168.0.1', '::ffff:192.168.0.1'],
  ];
  for (const [text, canonical] of cases) {
    const bytes = parseIpv6(text);
    t.ok(bytes, text);
    if (bytes) t.equal(formatIpv6(bytes), canonical, text);
  }
  for (const bad of ['1::2::3', '1:2:3:4:5:6:7', '12345::', 'g::1', '1:2:3:4:5:6:7:8:9'])
    t.equal(parseIpv6(bad), null, bad);
});

t.test('masks keep only the prefix bits', async (t) => {
  t.same(Array.from(maskBytes(Uint8Array.from([172, 16, 5, 5]), 12)), [172, 16, 0, 0]);
  t.same(Array.from(maskBytes(Uint8Array.from([255, 255, 255, 255]), 0)), [0, 0, 0, 0]);
});
