/**
 * GreptimeDB's anomaly-scoring window functions over HTTP: z-score (sample stddev, 2 values),
 * MAD and IQR (3 values) over each row's frame, NULLs left out of the frame, and the degenerate
 * answers: NULL with too few values, 0 at the centre of a constant frame, +inf off it.
 */
import t from 'tap';
import { checkFunctionCases, type FunctionCase, NO_SIGNATURE } from '../helpers/sql-function-cases.js';

const frame = 'OVER (PARTITION BY host ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)';

const cases: FunctionCase[] = [
  [
    `SELECT host, val, ROUND(anomaly_score_zscore(val) ${frame}, 2), ROUND(anomaly_score_mad(val) ${frame}, 2), ROUND(anomaly_score_iqr(val, 1.5) ${frame}, 2) FROM sensor_data WHERE host = 'web-1' ORDER BY ts`,
    [
      ['web-1', 10, null, null, null],
      ['web-1', 11, 0.71, null, null],
      ['web-1', 10.5, 0, 0, 0],
      ['web-1', 10.8, 0.52, 0.4, 0],
      ['web-1', 80, 1.79, 155.58, 136.5],
      ['web-1', 10.3, 0.42, 0.67, 0],
      ['web-1', 11.2, 0.36, 0.67, 0],
    ],
  ],
  [
    `SELECT val, anomaly_score_zscore(val) ${frame}, CAST(anomaly_score_mad(val) ${frame} AS STRING), anomaly_score_iqr(val, 1.5) ${frame} FROM sensor_data WHERE host = 'web-2' ORDER BY ts`,
    [
      [5, null, null, null],
      [5, 0, null, null],
      [5, 0, '0.0', 0],
      [null, null, null, null],
      [9, 1.5, 'inf', 1.5],
    ],
  ],
  [
    "SELECT val, anomaly_score_zscore(val) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM sensor_data WHERE host = 'web-1' ORDER BY ts LIMIT 2",
    [
      [10, 0.7071067811865475],
      [11, 1],
    ],
  ],
  [
    "SELECT anomaly_score_iqr(val, -1) OVER (), anomaly_score_iqr(val, NULL) OVER () FROM sensor_data WHERE host = 'web-1' LIMIT 1",
    [[null, null]],
  ],
  ['SELECT anomaly_score_zscore(host) OVER () FROM sensor_data', NO_SIGNATURE],
  [
    'SELECT anomaly_score_iqr(val) OVER () FROM sensor_data',
    { status: 400, code: 3000, message: "The function 'anomaly_score_iqr' expected 2 arguments but received 1" },
  ],
  [
    'SELECT anomaly_score_mad(val) FROM sensor_data',
    { status: 400, code: 3000, message: "Invalid function 'anomaly_score_mad'" },
  ],
];

t.test('anomaly scores', (t) =>
  checkFunctionCases(t, cases, [
    'CREATE TABLE sensor_data (host STRING, val DOUBLE, ts TIMESTAMP TIME INDEX, PRIMARY KEY (host))',
    "INSERT INTO sensor_data VALUES ('web-1', 10.0, '2025-01-01 00:00:00'), ('web-1', 11.0, '2025-01-01 00:01:00'), ('web-1', 10.5, '2025-01-01 00:02:00'), ('web-1', 10.8, '2025-01-01 00:03:00'), ('web-1', 80.0, '2025-01-01 00:04:00'), ('web-1', 10.3, '2025-01-01 00:05:00'), ('web-1', 11.2, '2025-01-01 00:06:00')",
    "INSERT INTO sensor_data VALUES ('web-2', 5, '2025-01-01 00:00:00'), ('web-2', 5, '2025-01-01 00:01:00'), ('web-2', 5, '2025-01-01 00:02:00'), ('web-2', NULL, '2025-01-01 00:03:00'), ('web-2', 9, '2025-01-01 00:04:00')",
  ]),
);
