/**
 * The log bench's three data sets, made once and posted unchanged to every target: the raw bodies
 * with the ShoalDB pipeline that parses them, and the same lines pre-parsed into the pipeline's
 * columns as JSONEachRow bodies for ClickHouse (made only when ClickHouse runs).
 */
import { accessBodies, jsonBodies, syslogBodies } from './generate.js';
import {
  ACCESS_COLUMNS,
  accessRowMaker,
  type Columns,
  flatten,
  identityColumns,
  jsonEachRowBodies,
  jsonRow,
  SYSLOG_COLUMNS,
  syslogRowMaker,
} from './rows.js';

export const ACCESS_PATTERN =
  '%{ip} - %{user} [%{ts}] "%{method} %{path} %{proto}" %{status} %{size} "%{referer}" "%{agent}"';
export const SYSLOG_PATTERN = '%{month} %{day->} %{time} %{host} %{program}[%{pid}]: %{msg}';

export const ACCESS_PIPELINE = `processors:
  - dissect:
      field: message
      pattern: '${ACCESS_PATTERN}'
  - date:
      field: ts
      formats:
        - "%d/%b/%Y:%H:%M:%S %z"
transform:
  - fields: [ip, user, method, proto, referer]
    type: string
  - fields: [path, agent]
    type: string
    index: fulltext
  - fields: [status, size]
    type: uint32
  - field: ts
    type: time
    index: timestamp
`;
// Syslog lines carry no year: the time index is the ingestion time (v1 adds greptime_timestamp).
export const SYSLOG_PIPELINE = `processors:
  - dissect:
      field: message
      pattern: '${SYSLOG_PATTERN}'
transform:
  - fields: [host, program, msg]
    type: string
  - field: pid
    type: int32
`;

/** One data set: what ShoalDB is sent and, when made, what ClickHouse is sent. */
export interface LogSet {
  name: string;
  table: string;
  pipeline: string;
  contentType: string;
  bodies: Buffer[];
  lines: number;
  rawBytes: number;
  clickhouse?: { columns: Columns; bodies: Buffer[] };
}

/** The sets for `totalBytes` of logs: half access lines, a quarter each syslog and JSON. */
export function makeSets(totalBytes: number, linesPerBody: number): { sets: LogSet[]; rare: number } {
  const access = accessBodies(totalBytes / 2, linesPerBody);
  const syslog = syslogBodies(totalBytes / 4, linesPerBody);
  const json = jsonBodies(totalBytes / 4, linesPerBody);
  const sized = <T extends { bodies: Buffer[] }>(s: T) => ({
    ...s,
    rawBytes: s.bodies.reduce((n, b) => n + b.length, 0),
  });
  const sets: LogSet[] = [
    {
      name: 'nginx access, dissect+date',
      table: 'access',
      pipeline: 'access',
      contentType: 'text/plain',
      ...sized({ bodies: access.bodies, lines: access.lines }),
    },
    { name: 'syslog, dissect', table: 'syslog', pipeline: 'syslog', contentType: 'text/plain', ...sized(syslog) },
    {
      name: 'JSON app logs, greptime_identity',
      table: 'app',
      pipeline: 'greptime_identity',
      contentType: 'application/x-ndjson',
      ...sized(json),
    },
  ];
  return { sets, rare: access.rare };
}

/** Adds the pre-parsed ClickHouse bodies to each set (untimed harness work); checks line counts. */
export function addClickHouseBodies(sets: LogSet[]): void {
  for (const set of sets) {
    let columns: Columns;
    let toRow: (line: string) => Record<string, string | number | boolean>;
    if (set.table === 'access') [columns, toRow] = [ACCESS_COLUMNS, accessRowMaker(ACCESS_PATTERN)];
    else if (set.table === 'syslog') [columns, toRow] = [SYSLOG_COLUMNS, syslogRowMaker(SYSLOG_PATTERN)];
    else {
      const firstLine = (set.bodies[0] as Buffer).toString('utf8').split('\n', 1)[0] as string;
      columns = identityColumns(flatten(JSON.parse(firstLine) as Record<string, unknown>));
      toRow = jsonRow;
    }
    const made = jsonEachRowBodies(set.bodies, columns, toRow);
    if (made.rows !== set.lines) throw new Error(`${set.table}: ${made.rows} rows from ${set.lines} lines`);
    set.clickhouse = { columns, bodies: made.bodies };
  }
}
