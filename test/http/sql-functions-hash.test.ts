/** Hash and encoding functions over HTTP: md5, the SHA-2 family, digest, encode/decode, to_hex. */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const EXECUTION = { status: 500, code: 3001 };

const cases: FunctionCase[] = [
  [
    "SELECT md5('abc'), md5(''), md5(NULL)",
    [['900150983cd24fb0d6963f7d28e17f72', 'd41d8cd98f00b204e9800998ecf8427e', null]],
  ],
  [
    "SELECT encode(sha256('abc'), 'hex'), encode(sha224('abc'), 'hex')",
    [
      [
        'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
        '23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7',
      ],
    ],
  ],
  [
    "SELECT length(encode(sha384('abc'), 'hex')), length(encode(sha512('abc'), 'hex')), sha256(NULL)",
    [[96, 128, null]],
  ],
  ["SELECT arrow_typeof(sha256('a')), arrow_typeof(md5('a'))", [['Binary', 'Utf8']]],
  [
    "SELECT encode(digest('abc', 'sha256'), 'hex') = encode(sha256('abc'), 'hex'), encode(digest('abc', 'md5'), 'hex'), digest(NULL, 'md5')",
    [[true, '900150983cd24fb0d6963f7d28e17f72', null]],
  ],
  // BLAKE3's published test value for "abc", and its empty input's.
  [
    "SELECT encode(digest('abc', 'blake3'), 'hex'), encode(digest('', 'BLAKE3'), 'hex')",
    [
      [
        '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85',
        'af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262',
      ],
    ],
  ],
  ["SELECT digest('abc', 'whirlpool')", { ...EXECUTION, message: "no built-in digest algorithm named 'whirlpool'" }],
  [
    "SELECT encode('hello', 'base64'), encode('hello', 'hex'), encode('é', 'hex'), encode(NULL, 'hex')",
    [['aGVsbG8', '68656c6c6f', 'c3a9', null]],
  ],
  [
    "SELECT CAST(decode('aGVsbG8', 'base64') AS STRING), CAST(decode('aGVsbG8=', 'base64') AS STRING), CAST(decode('68656c6c6f', 'HEX') AS STRING)",
    [['hello', 'hello', 'hello']],
  ],
  ["SELECT encode('a', 'rot13')", { ...EXECUTION, message: "no built-in encoding named 'rot13'" }],
  ["SELECT decode('zz', 'hex')", { ...EXECUTION, message: 'Failed to decode value using hex' }],
  ['SELECT to_hex(255), to_hex(0), to_hex(-1), to_hex(NULL)', [['ff', '0', 'ffffffffffffffff', null]]],
  ['SELECT md5(1)', NO_SIGNATURE],
  ["SELECT to_hex('a')", NO_SIGNATURE],
  ["SELECT encode('a')", NO_SIGNATURE],
];

t.test('hash and encoding functions', (t) => checkFunctionCases(t, cases));
