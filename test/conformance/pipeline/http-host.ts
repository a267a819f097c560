/**
 * The interpreter's pipeline (rust-eval.ts `Host`) as a real server over HTTP. `parse` creates
 * the pipeline (`POST /v1/pipelines/{name}`); `exec_mut` sends the record to the dry run (the
 * rows in pipeline order, as the Rust tests index them) and to `/v1/ingest`, then checks that the
 * table holds what the dry run showed (`SELECT *`, compared as a multiset) with the same columns
 * (`DESCRIBE TABLE`, which is also what `column_schemas()` answers). Any disagreement between
 * the two paths fails the case.
 */
import { parse as parseYaml } from 'yaml';
import { parseJsonExact } from '../../helpers/json.js';
import { sql } from '../../helpers/server.js';
import type { Host } from './rust-eval.js';
import { err, jsonEqual, NONE, type Obj, ok, Panic, some, type V } from './rust-values.js';

/** Marks the column a stub dispatch target writes, so `into_dispatched` can name the pipeline. */
const DISPATCH_MARK = 'dispatched_by_';

interface DryTable {
  table_name: string;
  schema: Array<{ name: string; data_type: string; column_type: string }>;
  rows: Array<Array<{ key: string; value: unknown; data_type: string }>>;
}

/** A row the dry run showed, with the wall-clock windows of the dry run and of the ingest. */
interface SentRow {
  cells: Map<string, { value: unknown; type: string }>;
  dry: [bigint, bigint];
  ingest: [bigint, bigint];
}

interface PipelineState {
  name: string;
  table: string;
  /** Rows expected in each stored table, by table name. */
  sent: Map<string, SentRow[]>;
  lastDrySchema: DryTable['schema'];
}

interface ExecState {
  tables: DryTable[];
  dispatched: { suffix: string; pipeline: string } | null;
}

const quote = (ident: string): string => `"${ident.replace(/"/g, '""')}"`;
const nowNs = (): bigint => BigInt(Date.now()) * 1_000_000n;
const SLACK = 5_000_000n; // clocks read in ms on both sides

/** Dry-run type names (`UINT8`, `TIMESTAMP_SECOND`) → ColumnDataType (`Uint8`, `TimestampSecond`). */
function columnDataType(dryName: string): string {
  return dryName
    .split('_')
    .map((p) => p.charAt(0) + p.slice(1).toLowerCase())
    .join('');
}

/** DESCRIBE type names (`UInt8`) → ColumnDataType names (`Uint8`). */
function columnDataTypeOfSql(sqlName: string): string {
  return sqlName.replace(/^UInt/, 'Uint');
}

const SEMANTIC: Record<string, string> = { TAG: 'Tag', FIELD: 'Field', TIMESTAMP: 'Timestamp' };

const UNIT_NS: Record<string, bigint> = {
  TIMESTAMP_SECOND: 1_000_000_000n,
  TIMESTAMP_MILLISECOND: 1_000_000n,
  TIMESTAMP_MICROSECOND: 1_000n,
  TIMESTAMP_NANOSECOND: 1n,
};

/** A dry-run cell as a `Some(ValueData::..)`/`None` by its column type. */
function valueData(cell: unknown, dryType: string): V {
  if (cell === null || cell === undefined) return NONE;
  const t = columnDataType(dryType);
  if (t === 'Json' || t === 'Binary') return some({ $: 'enum', name: 'BinaryValue', args: [{ $: 'bytes', v: cell }] });
  const name = `${t
    .replace(/^Uint/, 'U')
    .replace(/^Int/, 'I')
    .replace(/^Float/, 'F')
    .replace(/^Boolean/, 'Bool')}Value`;
  let v: V;
  if (typeof cell === 'string' && /^(U|I|Timestamp)/.test(name) && /^-?\d+$/.test(cell)) v = BigInt(cell);
  else if (typeof cell === 'number' && /^(U|I|Timestamp)/.test(name)) v = BigInt(cell);
  else v = cell as V;
  return some({ $: 'enum', name, args: [v] });
}

function cellsEqual(want: { value: unknown; type: string } | undefined, got: unknown, row: SentRow): boolean {
  const w = want?.value ?? null;
  if (w === null || got === null) return w === got;
  const unit = want ? UNIT_NS[want.type] : undefined;
  if (unit !== undefined) {
    const a = BigInt(String(w));
    const b = BigInt(String(got));
    if (a === b) return true;
    // "now" (greptime_timestamp, a defaulted time index) is read again by the ingest.
    const within = (x: bigint, [lo, hi]: [bigint, bigint]): boolean => x * unit >= lo - SLACK && x * unit <= hi + SLACK;
    return within(a, row.dry) && within(b, row.ingest);
  }
  if (typeof w === 'object' || typeof got === 'object') return jsonEqual(w, got);
  return String(w) === String(got) || Number(w) === Number(got);
}

export class HttpHost implements Host {
  private n = 0;
  private lastRun = 0n;
  private readonly stubs = new Set<string>();

  constructor(
    private readonly url: string,
    private readonly prefix: string,
  ) {}

  nowNanos(): bigint {
    return this.lastRun;
  }

  private async post(path: string, body: string, contentType: string): Promise<{ status: number; text: string }> {
    const res = await fetch(`${this.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
    return { status: res.status, text: await res.text() };
  }

  private errorText(text: string): V {
    let msg = text;
    try {
      const body = JSON.parse(text) as { error?: string };
      if (typeof body.error === 'string') msg = body.error;
    } catch {
      // plain text
    }
    return { $: 'errtext', msg };
  }

  /**
   * A dispatcher rule names a stored pipeline the Rust test never runs. Over HTTP it must exist:
   * a stub keeps only the dispatch field, in a column that names the stub.
   */
  private async createStubs(yaml: string): Promise<void> {
    let doc: { dispatcher?: { field?: string; rules?: Array<{ pipeline?: string }> } };
    try {
      doc = parseYaml(yaml) ?? {};
    } catch {
      return;
    }
    const field = doc.dispatcher?.field;
    for (const rule of doc.dispatcher?.rules ?? []) {
      const name = rule.pipeline;
      if (!field || typeof name !== 'string' || this.stubs.has(name)) continue;
      const stub = `transform:\n  - field: ${field}, ${DISPATCH_MARK}${name}\n    type: string\n`;
      const r = await this.post(`/v1/pipelines/${encodeURIComponent(name)}`, stub, 'application/x-yaml');
      if (r.status !== 200) throw new Panic(`could not create the dispatch stub ${name}: ${r.text}`);
      this.stubs.add(name);
    }
  }

  async parse(yaml: string): Promise<V> {
    await this.createStubs(yaml);
    const name = `${this.prefix}_${++this.n}`;
    const r = await this.post(`/v1/pipelines/${name}`, yaml, 'application/x-yaml');
    if (r.status >= 400 && r.status < 500) return err(this.errorText(r.text));
    if (r.status !== 200) throw new Panic(`POST /v1/pipelines/${name}: ${r.status} ${r.text}`);
    const state: PipelineState = { name, table: name, sent: new Map(), lastDrySchema: [] };
    return ok({ $: 'host', kind: 'pipeline', data: state });
  }

  async exec(handle: Obj, record: unknown): Promise<V> {
    const state = (handle as { data: PipelineState }).data;
    const body = JSON.stringify(record);
    const d0 = nowNs();
    // `Utc::now()` after an in-process exec_mut; over HTTP the latest instant surely not before
    // the run is the request's start (so a run under load cannot look late).
    this.lastRun = d0;
    const dry = await this.post(`/v1/pipelines/_dryrun?pipeline_name=${state.name}`, body, 'application/json');
    const d1 = nowNs();
    const i0 = nowNs();
    const ingest = await this.post(
      `/v1/ingest?table=${state.table}&pipeline_name=${state.name}`,
      body,
      'application/json',
    );
    const i1 = nowNs();
    const refused = (s: number): boolean => s >= 400 && s < 500;
    if (refused(dry.status) && refused(ingest.status)) return err(this.errorText(dry.text));
    if (dry.status !== 200 || ingest.status !== 200) {
      throw new Panic(
        `dry run answered ${dry.status} ${dry.text.slice(0, 200)}; ingest ${ingest.status} ${ingest.text.slice(0, 200)}`,
      );
    }
    const tables = parseJsonExact(dry.text) as DryTable[];
    let dispatched: ExecState['dispatched'] = null;
    for (const t of tables) {
      const suffix = t.table_name.slice('dry_run'.length);
      const mark = t.schema.find((c) => c.name.startsWith(DISPATCH_MARK));
      if (mark) dispatched = { suffix, pipeline: mark.name.slice(DISPATCH_MARK.length) };
      if (suffix === '') state.lastDrySchema = t.schema;
      const stored = `${state.table}${suffix}`;
      const sent = state.sent.get(stored) ?? [];
      for (const row of t.rows) {
        sent.push({
          cells: new Map(row.map((c) => [c.key, { value: c.value, type: c.data_type }])),
          dry: [d0, d1],
          ingest: [i0, i1],
        });
      }
      state.sent.set(stored, sent);
      await this.checkStored(stored, t, sent);
    }
    const exec: ExecState = { tables, dispatched };
    return ok({ $: 'host', kind: 'exec', data: exec });
  }

  /** The stored table has the dry run's columns (same order, types, semantics) and rows. */
  private async checkStored(table: string, dry: DryTable, sent: SentRow[]): Promise<void> {
    if (sent.length === 0) return;
    const described = await this.describe(table);
    if (!described) throw new Panic(`table ${table} was not created`);
    const order = described.map((c) => c.name).filter((n) => dry.schema.some((d) => d.name === n));
    if (order.join() !== dry.schema.map((d) => d.name).join()) {
      throw new Panic(
        `stored column order ${order.join()} differs from the dry run's ${dry.schema.map((d) => d.name).join()}`,
      );
    }
    for (const d of dry.schema) {
      const s = described.find((c) => c.name === d.name);
      if (s?.type !== columnDataType(d.data_type) || s.semantic !== SEMANTIC[d.column_type]) {
        throw new Panic(
          `stored column ${d.name} is ${s?.type}/${s?.semantic}, the dry run says ${d.data_type}/${d.column_type}`,
        );
      }
    }
    const r = await sql(this.url, `SELECT * FROM ${quote(table)}`);
    if (r.status !== 200) throw new Panic(`SELECT * FROM ${table}: ${r.text}`);
    const body = parseJsonExact(r.text) as {
      output: Array<{ records: { schema: { column_schemas: Array<{ name: string }> }; rows: unknown[][] } }>;
    };
    const rec = body.output[0]?.records;
    const names = rec?.schema.column_schemas.map((c) => c.name) ?? [];
    const stored = rec?.rows ?? [];
    if (stored.length !== sent.length)
      throw new Panic(`${table} holds ${stored.length} rows, the dry run showed ${sent.length}`);
    const used = new Set<number>();
    for (const want of sent) {
      const at = stored.findIndex(
        (row, i) => !used.has(i) && names.every((name, c) => cellsEqual(want.cells.get(name), row[c] ?? null, want)),
      );
      if (at < 0) {
        const shown = JSON.stringify(Object.fromEntries([...want.cells].map(([k, c]) => [k, c.value])));
        throw new Panic(`no stored row of ${table} matches the dry run's ${shown}`);
      }
      used.add(at);
    }
  }

  private async describe(table: string): Promise<Array<{ name: string; type: string; semantic: string }> | null> {
    const r = await sql(this.url, `DESCRIBE TABLE ${quote(table)}`);
    if (r.status !== 200) return null;
    const rows = r.body.output?.[0]?.records?.rows ?? [];
    return rows.map((row) => ({
      name: String(row[0]),
      type: columnDataTypeOfSql(String(row[1])),
      semantic: SEMANTIC[String(row[5])] ?? String(row[5]),
    }));
  }

  async schemas(handle: Obj): Promise<V> {
    const state = (handle as { data: PipelineState }).data;
    const described = await this.describe(state.table);
    const columns =
      described ??
      state.lastDrySchema.map((d) => ({
        name: d.name,
        type: columnDataType(d.data_type),
        semantic: SEMANTIC[d.column_type] ?? d.column_type,
      }));
    return columns.map((c) => ({
      $: 'struct',
      name: 'ColumnSchema',
      fields: {
        column_name: c.name,
        datatype: { $: 'enum', name: c.type, args: [] },
        semantic_type: { $: 'enum', name: c.semantic, args: [] },
      },
    }));
  }

  into(result: Obj, what: 'transformed' | 'dispatched'): V {
    const exec = (result as { data: ExecState }).data;
    if (what === 'dispatched') {
      if (!exec.dispatched) return NONE;
      return some({
        $: 'struct',
        name: 'DispatchedTo',
        fields: { table_suffix: exec.dispatched.suffix, pipeline: some(exec.dispatched.pipeline) },
      });
    }
    if (exec.dispatched) return NONE;
    const rows: V[] = [];
    for (const t of exec.tables) {
      const suffix = t.table_name.slice('dry_run'.length);
      for (const row of t.rows) {
        const values: V[] = t.schema.map((col) => {
          const cell = row.find((c) => c.key === col.name);
          return { $: 'struct', name: 'Value', fields: { value_data: valueData(cell?.value ?? null, col.data_type) } };
        });
        rows.push({
          $: 'tuple',
          items: [{ $: 'struct', name: 'Row', fields: { values } }, suffix ? some(suffix) : NONE],
        });
      }
    }
    return some(rows);
  }
}
