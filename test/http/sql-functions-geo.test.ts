/** GreptimeDB's geohash, geohash_neighbours and wkt_point_from_latlng over HTTP (values from its sqlness cases). */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const EXECUTION = { status: 500, code: 3001 };

const cases: FunctionCase[] = [
  [
    'SELECT geohash(37.76938, -122.3889, 11), geohash(37.76938, -122.3889, 9), geohash(42.6, -5.6, 5)',
    [['9q8yygxneft', '9q8yygxne', 'ezs42']],
  ],
  ['SELECT geohash(37.76938, -122.3889, CAST(11 AS TINYINT)), geohash(NULL, 1, 3)', [['9q8yygxneft', null]]],
  [
    'SELECT geohash(37.76938, -122.3889, 100)',
    { ...EXECUTION, message: 'Invalid geohash resolution 100, expect value: [1, 12]' },
  ],
  ['SELECT geohash(37.76938, -122.3889, -1)', { ...EXECUTION, message: 'Invalid geohash resolution -1' }],
  ['SELECT geohash(91, 0, 5)', { ...EXECUTION, message: 'Geohash error' }],
  [
    'SELECT geohash_neighbours(37.76938, -122.3889, 11)',
    [
      [
        [
          '9q8yygxnefv',
          '9q8yygxnefu',
          '9q8yygxnefs',
          '9q8yygxnefk',
          '9q8yygxnefm',
          '9q8yygxnefq',
          '9q8yygxnefw',
          '9q8yygxnefy',
        ],
      ],
    ],
  ],
  [
    'SELECT wkt_point_from_latlng(37.76938, -122.3889), wkt_point_from_latlng(NULL, 1)',
    [['POINT(-122.3889 37.76938)', null]],
  ],
  [
    'SELECT name, geohash(lat, lng, 6) FROM places ORDER BY ts',
    [
      ['sf', '9q8yyg'],
      ['none', null],
    ],
  ],
  ["SELECT geohash('a', 1, 2)", NO_SIGNATURE],
  ['SELECT geohash(1, 2, 2.5)', NO_SIGNATURE],
];

t.test('geo functions', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE places (ts TIMESTAMP TIME INDEX, name STRING, lat DOUBLE, lng DOUBLE)',
    "INSERT INTO places VALUES (1, 'sf', 37.76938, -122.3889), (2, 'none', NULL, 1)",
  ]),
);
