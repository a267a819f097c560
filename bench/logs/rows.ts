/**
 * The log bench's pre-parse for peers without ingest pipelines (ClickHouse): the same columns
 * ShoalDB's pipelines make, computed in the harness before the clock starts, and written as
 * `JSONEachRow` bodies of the same lines as the raw bodies. A small dissect (literal delimiters,
 * `->` skips repeated delimiters), the access date format, and greptime_identity's flattening
 * (`a.b.c` keys, arrays as JSON text).
 */

type Row = Record<string, string | number | boolean>;

/** Column names and ClickHouse types of a table, in order; the first is the sort key. */
export type Columns = Array<[string, string]>;

/** Splits a dissect pattern: the literal prefix, then per key its name, padding and delimiter. */
export function compileDissect(pattern: string): (line: string) => Record<string, string> | undefined {
  const keys: Array<{ name: string; padded: boolean; delimiter: string }> = [];
  const first = pattern.indexOf('%{');
  const prefix = pattern.slice(0, first);
  for (let i = first; i >= 0 && i < pattern.length; ) {
    const close = pattern.indexOf('}', i);
    const spec = pattern.slice(i + 2, close);
    const after = pattern.indexOf('%{', close);
    const delimiter = pattern.slice(close + 1, after < 0 ? pattern.length : after);
    keys.push({ name: spec.replace(/->$/, ''), padded: spec.endsWith('->'), delimiter });
    i = after;
  }
  return (line) => {
    if (!line.startsWith(prefix)) return undefined;
    const out: Record<string, string> = {};
    let pos = prefix.length;
    for (const key of keys) {
      let end = line.length;
      let next = line.length;
      if (key.delimiter !== '') {
        end = line.indexOf(key.delimiter, pos);
        if (end < 0) return undefined;
        next = end + key.delimiter.length;
        if (key.padded) while (line.startsWith(key.delimiter, next)) next += key.delimiter.length;
      }
      out[key.name] = line.slice(pos, end);
      pos = next;
    }
    return out;
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `%d/%b/%Y:%H:%M:%S %z` to epoch seconds (ClickHouse DateTime takes them in JSONEachRow). */
export function accessTimeSeconds(text: string): number {
  const m = /^(\d\d)\/(\w{3})\/(\d{4}):(\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)$/.exec(text);
  if (!m) throw new Error(`bad access time ${text}`);
  const [, d, mon, y, h, min, s, sign, oh, om] = m;
  const utc = Date.UTC(Number(y), MONTHS.indexOf(mon as string), Number(d), Number(h), Number(min), Number(s));
  const offsetMs = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  return (utc - offsetMs) / 1000;
}

/** greptime_identity's flattening: nested objects to dotted keys, arrays to JSON text. */
export function flatten(record: Record<string, unknown>, prefix = '', out: Row = {}): Row {
  for (const [key, v] of Object.entries(record)) {
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (Array.isArray(v)) out[name] = JSON.stringify(v);
    else if (v !== null && typeof v === 'object') flatten(v as Record<string, unknown>, name, out);
    else if (v !== null && v !== undefined) out[name] = v as string | number | boolean;
  }
  return out;
}

/** ClickHouse types greptime_identity would infer for a flattened row (after the time column). */
export function identityColumns(row: Row): Columns {
  const columns: Columns = [['greptime_timestamp', 'DateTime']];
  for (const key of Object.keys(row).sort()) {
    if (key === 'greptime_timestamp') continue;
    const v = row[key];
    const type =
      typeof v === 'boolean' ? 'UInt8' : typeof v === 'number' ? (Number.isInteger(v) ? 'Int64' : 'Float64') : 'String';
    columns.push([key, type]);
  }
  return columns;
}

/** The access pipeline's transform: strings, uint32 status and size, the time index `ts`. */
export const ACCESS_COLUMNS: Columns = [
  ['ts', 'DateTime'],
  ['ip', 'String'],
  ['user', 'String'],
  ['method', 'String'],
  ['path', 'String'],
  ['proto', 'String'],
  ['status', 'UInt32'],
  ['size', 'UInt32'],
  ['referer', 'String'],
  ['agent', 'String'],
];

/** The syslog pipeline's transform; the time index is the ingestion time, as in ShoalDB. */
export const SYSLOG_COLUMNS: Columns = [
  ['greptime_timestamp', 'DateTime'],
  ['host', 'String'],
  ['program', 'String'],
  ['pid', 'Int32'],
  ['msg', 'String'],
];

function linesOf(body: Buffer): string[] {
  const lines = body.toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Rewrites raw bodies line for line as JSONEachRow bodies with `columns`, through `toRow`.
 * ClickHouse 18.16 leaves an omitted column at its type's zero (not its DEFAULT), so the
 * ingestion time is stamped here, when the bodies are made.
 */
export function jsonEachRowBodies(
  bodies: Buffer[],
  columns: Columns,
  toRow: (line: string) => Row,
): { bodies: Buffer[]; rows: number } {
  const names = columns.map(([name]) => name);
  const now = Math.floor(Date.now() / 1000);
  let rows = 0;
  const out = bodies.map((body) => {
    const json: string[] = [];
    for (const line of linesOf(body)) {
      const row = toRow(line);
      row.greptime_timestamp ??= now;
      const ordered: Row = {};
      for (const name of names) {
        const v = row[name];
        if (v === undefined) throw new Error(`line without ${name}: ${line.slice(0, 120)}`);
        ordered[name] = v;
      }
      json.push(JSON.stringify(ordered));
      rows++;
    }
    return Buffer.from(`${json.join('\n')}\n`);
  });
  return { bodies: out, rows };
}

/** Access lines to ACCESS_COLUMNS rows through the pipeline's dissect pattern and date format. */
export function accessRowMaker(pattern: string): (line: string) => Row {
  const parse = compileDissect(pattern);
  return (line) => {
    const f = parse(line);
    if (!f) throw new Error(`access line does not match: ${line.slice(0, 120)}`);
    return { ...f, ts: accessTimeSeconds(f.ts as string), status: Number(f.status), size: Number(f.size) };
  };
}

/** Syslog lines to SYSLOG_COLUMNS rows (month, day and time are dropped, as by the transform). */
export function syslogRowMaker(pattern: string): (line: string) => Row {
  const parse = compileDissect(pattern);
  return (line) => {
    const f = parse(line);
    if (!f) throw new Error(`syslog line does not match: ${line.slice(0, 120)}`);
    return { host: f.host as string, program: f.program as string, pid: Number(f.pid), msg: f.msg as string };
  };
}

/** JSON app lines to greptime_identity's flattened rows. */
export function jsonRow(line: string): Row {
  return flatten(JSON.parse(line) as Record<string, unknown>);
}
