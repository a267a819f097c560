/** GreptimeDB's ipv4_* and ipv6_* functions over HTTP, on constants and on a column. */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const INVALID = { status: 400, code: 1004 };

const cases: FunctionCase[] = [
  [
    'SELECT ipv4_num_to_string(167772161), ipv4_num_to_string(3232235521), ipv4_num_to_string(0), ipv4_num_to_string(4294967295), ipv4_num_to_string(NULL)',
    [['10.0.0.1', '192.168.0.1', '0.0.0.0', '255.255.255.255', null]],
  ],
  [
    "SELECT ipv4_string_to_num('10.0.0.1'), ipv4_string_to_num('255.255.255.255'), ipv4_string_to_num(NULL)",
    [[167772161, 4294967295, null]],
  ],
  ["SELECT ipv4_string_to_num('256.0.0.1')", { ...INVALID, message: 'Invalid IPv4 address format: 256.0.0.1' }],
  ["SELECT ipv4_string_to_num('10.0.0')", { ...INVALID, message: 'Invalid IPv4 address format' }],
  [
    "SELECT ipv4_to_cidr('192.168.1.0'), ipv4_to_cidr('10.0.0.0'), ipv4_to_cidr('172.16'), ipv4_to_cidr('192')",
    [['192.168.1.0/24', '10.0.0.0/8', '172.16.0.0/16', '192.0.0.0/8']],
  ],
  [
    "SELECT ipv4_to_cidr('192.168.1.1', 24), ipv4_to_cidr('172.16.5.5', 12), ipv4_to_cidr(NULL)",
    [['192.168.1.0/24', '172.16.0.0/12', null]],
  ],
  ["SELECT ipv4_to_cidr('')", { ...INVALID, message: 'Empty IPv4 address' }],
  [
    "SELECT ipv4_in_range('192.168.1.5', '192.168.1.0/24'), ipv4_in_range('192.168.2.1', '192.168.1.0/24'), ipv4_in_range('8.8.8.8', '0.0.0.0/0'), ipv4_in_range('192.168.1.1', '192.168.1.0/32'), ipv4_in_range(NULL, '10.0.0.0/8')",
    [[true, false, true, false, null]],
  ],
  ["SELECT ipv4_in_range('192.168.1.1', '192.168.1.0')", { ...INVALID, message: 'Invalid CIDR notation' }],
  ["SELECT ipv4_in_range('192.168.1.1', '10.0.0.0/33')", { ...INVALID, message: 'prefix length must be <= 32' }],
  ["SELECT ipv4_in_range('', '10.0.0.0/8')", { status: 500, code: 3001, message: 'cannot be empty' }],
  [
    "SELECT ipv6_num_to_string('20010db8000000000000000000000001'), ipv6_num_to_string('00000000000000000000FFFFC0A80001'), ipv6_num_to_string(NULL)",
    [['2001:db8::1', '::ffff:192.168.0.1', null]],
  ],
  ["SELECT ipv6_num_to_string('20010db8')", { status: 500, code: 3001, message: 'expecting 32 hex characters, got 8' }],
  [
    "SELECT encode(ipv6_string_to_num('2001:db8::1'), 'hex'), encode(ipv6_string_to_num('192.168.0.1'), 'hex'), ipv6_string_to_num(NULL)",
    [['20010db8000000000000000000000001', '00000000000000000000ffffc0a80001', null]],
  ],
  ["SELECT ipv6_string_to_num('not-an-ip')", { status: 500, code: 3001, message: 'Invalid IPv6 address format' }],
  [
    "SELECT ipv6_to_cidr('2001:db8::'), ipv6_to_cidr('2001:db8'), ipv6_to_cidr('fe80::1'), ipv6_to_cidr('::1'), ipv6_to_cidr('2001:db8::', 48), ipv6_to_cidr('2001:db8:1234::', 40)",
    [['2001:db8::/32', '2001:db8::/32', 'fe80::/16', '::1/128', '2001:db8::/48', '2001:db8:1200::/40']],
  ],
  [
    "SELECT ipv6_in_range('2001:db8::1', '2001:db8::/32'), ipv6_in_range('2001:db9::1', '2001:db8::/32'), ipv6_in_range('::1', '::1/128'), ipv6_in_range('fe80::1', 'fe80::/16')",
    [[true, false, true, true]],
  ],
  ["SELECT ipv6_in_range('2001:db8::1', '2001:db8::/129')", { ...INVALID, message: 'prefix length must be <= 128' }],
  [
    "SELECT ip, ipv4_string_to_num(ip), ipv4_in_range(ip, '10.0.0.0/8') FROM hosts ORDER BY ts",
    [
      ['10.1.2.3', 167838211, true],
      ['192.168.0.1', 3232235521, false],
      [null, null, null],
    ],
  ],
  ['SELECT ipv4_string_to_num(1)', NO_SIGNATURE],
  ["SELECT ipv4_in_range('1.1.1.1')", NO_SIGNATURE],
];

t.test('ip functions', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE hosts (ts TIMESTAMP TIME INDEX, ip STRING)',
    "INSERT INTO hosts VALUES (1, '10.1.2.3'), (2, '192.168.0.1'), (3, NULL)",
  ]),
);
