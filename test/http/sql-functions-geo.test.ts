/**
 * GreptimeDB's geo functions over HTTP: geohash, geohash_neighbours, wkt_point_from_latlng and the
 * h3_* family (values from GreptimeDB's sqlness cases; UInt64 cells compared as text, since JSON
 * numbers past 2^53 would round alike whether right or wrong).
 */
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
  [
    `SELECT CAST(h3_latlng_to_cell(37.76938, -122.3889, 0) AS STRING), h3_latlng_to_cell_string(37.76938, -122.3889, 0),
       CAST(h3_latlng_to_cell(37.76938, -122.3889, 1) AS STRING), h3_latlng_to_cell_string(37.76938, -122.3889, 1),
       CAST(h3_latlng_to_cell(37.76938, -122.3889, CAST(8 AS TINYINT)) AS STRING), h3_latlng_to_cell_string(37.76938, -122.3889, 8)`,
    [
      [
        '577199624117288959',
        '8029fffffffffff',
        '581672437419081727',
        '81283ffffffffff',
        '613196570438926335',
        '88283082e7fffff',
      ],
    ],
  ],
  [
    'SELECT h3_latlng_to_cell(37.76938, -122.3889, 100)',
    { ...EXECUTION, message: 'H3 error: invalid resolution (got Some(100)): out of range' },
  ],
  [
    'SELECT h3_latlng_to_cell_string(37.76938, -122.3889, -1)',
    { ...EXECUTION, message: 'H3 error: invalid resolution (got Some(255)): out of range' },
  ],
  [
    `SELECT h3_cell_to_string(h3_latlng_to_cell(37.76938, -122.3889, 8)) AS cell_str,
       CAST(h3_string_to_cell(h3_latlng_to_cell_string(37.76938, -122.3889, 8)) AS STRING) AS cell_index,
       h3_cell_to_string(CAST(613196570438926335 AS BIGINT)), h3_cell_to_string('88283082E7FFFFF')`,
    [['88283082e7fffff', '613196570438926335', '88283082e7fffff', '88283082e7fffff']],
  ],
  [
    `SELECT round(array_element(arr, 1), 9), round(array_element(arr, 2), 9) FROM
       (SELECT h3_cell_center_latlng(h3_latlng_to_cell(37.76938, -122.3889, 8)) AS arr)`,
    [[37.772461522, -122.390109971]],
  ],
  [
    `SELECT h3_cell_resolution(cell), h3_cell_base(cell), h3_cell_is_pentagon(cell),
       CAST(h3_cell_parent(cell, 6) AS STRING), h3_cell_to_children_size(cell, 10),
       h3_cell_to_child_pos(cell, 6), CAST(h3_child_pos_to_cell(25, cell, 11) AS STRING),
       h3_cell_to_string(h3_cell_center_child(cell, 9)),
       h3_cell_parent(cell, 9), h3_cell_center_child(cell, 7), h3_cell_to_children_size(cell, 7),
       h3_child_pos_to_cell(100000, cell, 9)
     FROM (SELECT h3_latlng_to_cell(37.76938, -122.3889, 8) AS cell)`,
    [[8, 20, false, '604189371209351167', 49, 45, '626707369319059455', '89283082e63ffff', null, null, 0, null]],
  ],
  [
    `SELECT array_length(h3_cell_to_children(cell, 10)), CAST(array_element(h3_cell_to_children(cell, 10), 1) AS STRING),
       CAST(array_element(h3_cell_to_children(cell, 10), 49) AS STRING), array_length(h3_cell_to_children(cell, 7))
     FROM (SELECT h3_latlng_to_cell(37.76938, -122.3889, 8) AS cell)`,
    [[49, '622203769691602943', '622203769693372415', 0]],
  ],
  [
    `SELECT array_length(h3_grid_disk(cell, 0)), array_length(h3_grid_disk(cell, 3)),
       CAST(array_element(h3_grid_disk(cell, 3), 2) AS STRING), CAST(array_element(h3_grid_disk(cell, 3), 37) AS STRING),
       CAST(array_element(h3_grid_disk_distances(cell, 3), 37) AS STRING)
     FROM (SELECT h3_latlng_to_cell(37.76938, -122.3889, 8) AS cell)`,
    [[1, 37, '613196570436829183', '613196570216628223', '613196570216628223']],
  ],
  [
    `SELECT h3_grid_distance(cell1, cell2), array_length(h3_grid_path_cells(cell1, cell2)),
       CAST(array_element(h3_grid_path_cells(cell1, cell2), 10) AS STRING),
       round(h3_distance_sphere_km(cell1, cell2), 5), round(h3_distance_degree(cell1, cell2), 12)
     FROM (SELECT h3_string_to_cell('86283082fffffff') AS cell1, h3_string_to_cell('86283470fffffff') AS cell2)`,
    [[9, 10, '604189641255419903', 55.05017, 0.549392436971]],
  ],
  [
    `SELECT
       h3_cells_contains('86283470fffffff,862834777ffffff, 862834757ffffff, 86283471fffffff, 862834707ffffff', '8b283470d112fff'),
       h3_cells_contains('86283470fffffff,862834777ffffff, 862834757ffffff, 86283471fffffff, 862834707ffffff', 604189641792290815),
       h3_cells_contains(make_array('86283470fffffff', '862834777ffffff', '862834757ffffff', '86283471fffffff', '862834707ffffff'), '86283472fffffff'),
       h3_cells_contains(make_array(604189641255419903, 604189643000250367, 604189642463379455, 604189641523855359, 604189641121202175), 626707639343067135),
       h3_cells_contains(NULL, '8b283470d112fff'), h3_cells_contains('86283470fffffff', NULL)`,
    [[true, false, false, true, false, null]],
  ],
  ['SELECT h3_cell_resolution(h3_string_to_cell(NULL)), h3_cell_base(NULL)', [[null, null]]],
  [
    `WITH cell_cte AS (SELECT s2_latlng_to_cell(37.76938, -122.3889) AS cell)
     SELECT CAST(cell AS STRING), s2_cell_to_token(cell), s2_cell_level(cell), CAST(s2_cell_parent(cell, 3) AS STRING),
       s2_cell_level(s2_cell_parent(cell, 3))
     FROM cell_cte`,
    [['9263763445276221387', '808f7fc59ef01fcb', 30, '9277415232383221760', 3]],
  ],
  ['SELECT s2_latlng_to_cell(NULL, 1), s2_cell_level(NULL), s2_cell_parent(NULL, 1)', [[null, null, null]]],
  ['SELECT s2_latlng_to_cell(91, 0)', { status: 400, code: 1004, message: 'The input coordinates are invalid' }],
  [
    'SELECT s2_cell_parent(s2_latlng_to_cell(1, 2), 31)',
    { status: 400, code: 1004, message: 'Invalid S2 level 31, expect value: [0, 30]' },
  ],
  ["SELECT s2_cell_level('808f7fc59ef01fcb')", NO_SIGNATURE],
  [
    `SELECT st_distance(p1, p2), st_distance_sphere_m(p1, p2), st_distance(p1, polygon1), st_area(p1), st_area(polygon1)
     FROM (SELECT wkt_point_from_latlng(37.76938, -122.3889) AS p1, wkt_point_from_latlng(38.5216, -121.4247) AS p2,
       'POLYGON ((-121.491698 38.653343, -121.582353 38.556757, -121.469721 38.449287, -121.315883 38.541721, -121.491698 38.653343))' AS polygon1)`,
    [[1.2229131483470166, 118766.03647159638, 1.1271559800391486, 0, 0.027022178074000106]],
  ],
  [
    `SELECT st_contains(polygon1, p1), st_contains(polygon2, p1), st_within(p1, polygon1), st_within(p1, polygon2),
       st_intersects(polygon1, polygon2), st_intersects(polygon1, polygon3)
     FROM (SELECT wkt_point_from_latlng(37.383287, -122.01325) AS p1,
       'POLYGON ((-122.031661 37.428252, -122.139829 37.387072, -122.135365 37.361971, -122.057759 37.332222, -121.987707 37.328946, -121.943754 37.333041, -121.919373 37.349145, -121.945814 37.376705, -121.975689 37.417345, -121.998696 37.409164, -122.031661 37.428252))' AS polygon1,
       'POLYGON ((-121.491698 38.653343, -121.582353 38.556757, -121.469721 38.449287, -121.315883 38.541721, -121.491698 38.653343))' AS polygon2,
       'POLYGON ((-122.089628 37.450332, -122.20535 37.378342, -122.093062 37.36088, -122.044301 37.372886, -122.089628 37.450332))' AS polygon3)`,
    [[true, false, true, false, false, true]],
  ],
  [
    "SELECT st_distance_sphere_m(wkt_point_from_latlng(37.76938, -122.3889), 'POLYGON ((-121.491698 38.653343, -121.582353 38.556757, -121.469721 38.449287, -121.491698 38.653343))')",
    { ...EXECUTION, message: 'Great circle distance between non-point objects are not supported for now.' },
  ],
  ["SELECT st_area('POLYGON ((1 2')", { ...EXECUTION, message: 'Fail to parse WKT' }],
  ['SELECT st_area(NULL), st_contains(NULL, NULL)', [[null, null]]],
  ['SELECT st_area(1)', NO_SIGNATURE],
  ["SELECT h3_cell_resolution('not a cell')", { ...EXECUTION, message: 'H3 error: invalid cell index' }],
  ['SELECT h3_cell_resolution(12345)', { ...EXECUTION, message: 'H3 error: invalid cell index' }],
  ['SELECT h3_cell_resolution(1.5)', NO_SIGNATURE],
  ["SELECT h3_latlng_to_cell('a', 1, 2)", NO_SIGNATURE],
  [
    'SELECT name, h3_latlng_to_cell_string(lat, lng, 5) FROM places ORDER BY ts',
    [
      ['sf', '85283083fffffff'],
      ['none', null],
    ],
  ],
  ['SELECT geohash(1, 2, 2.5)', NO_SIGNATURE],
];

t.test('geo functions', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE places (ts TIMESTAMP TIME INDEX, name STRING, lat DOUBLE, lng DOUBLE)',
    "INSERT INTO places VALUES (1, 'sf', 37.76938, -122.3889), (2, 'none', NULL, 1)",
  ]),
);
