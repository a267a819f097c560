/**
 * The pipeline editor: YAML with validation markers, a dry run against pasted records showing
 * every processor's output, saving as a new version, and the versions kept (listed, loaded, deleted).
 */
import { syntaxTree } from '@codemirror/language';
import { type Diagnostic, forceLinting, linter } from '@codemirror/lint';
import type { EditorView } from 'codemirror';
import { ApiError, authedFetch, json, sqlObjects, url } from './api';
import { button, el, errorBox, field, replaceChildren } from './dom';
import { createEditor, diagnosticAt, setText, textOf, yamlSupport } from './editor';
import { renderTable } from './result-table';

const SAMPLE_PIPELINE = `processors:
  - dissect:
      fields:
        - message
      patterns:
        - '%{ip} %{method} %{path} %{status}'
  - date:
      fields:
        - time
      formats:
        - '%Y-%m-%dT%H:%M:%S%.3fZ'

transform:
  - fields:
      - ip
      - method
      - path
    type: string
  - fields:
      - status
    type: int32
  - field: time
    type: time
    index: timestamp
`;

const SAMPLE_DATA = '[{"message": "10.0.0.1 GET /index.html 200", "time": "2024-05-01T10:00:00.000Z"}]';

interface TraceStep {
  processor: string;
  output?: unknown;
  error?: string;
  dropped?: boolean;
}

interface TraceAnswer {
  results?: unknown;
  failures?: Array<{ record: number; error: string }>;
  trace?: Array<{ record: number; steps: TraceStep[] }>;
}

/** The records of the sample box: a JSON array, one object, or one object per line. */
export function sampleText(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) return trimmed;
  if (trimmed.startsWith('{') && !trimmed.includes('\n')) return trimmed;
  return `[${trimmed
    .split('\n')
    .filter((l) => l.trim() !== '')
    .join(',')}]`;
}

async function dryRun(pipeline: string, data: string): Promise<TraceAnswer> {
  return json<TraceAnswer>('v1/pipelines/_dryrun?trace=true', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pipeline, data: sampleText(data), data_type: 'application/json' }),
  });
}

/** Where the YAML parser gave up, as markers (the server checks the meaning on dry run). */
function yamlSyntaxDiagnostics(view: EditorView): Diagnostic[] {
  const length = view.state.doc.length;
  const seen = new Set<number>();
  const out: Diagnostic[] = [];
  syntaxTree(view.state).iterate({
    enter: (node) => {
      if (!node.type.isError || seen.has(node.from)) return;
      seen.add(node.from);
      // The parser's error nodes are often empty, and at the end of the text: widen to a character.
      // A mark on a line break is not drawn, so step back onto the text before it.
      let from = Math.min(node.from, Math.max(length - 1, 0));
      while (from > 0 && view.state.sliceDoc(from, from + 1) === '\n') from -= 1;
      out.push({
        from,
        to: Math.min(Math.max(node.to, from + 1), length),
        severity: 'error',
        message: 'YAML syntax error',
      });
    },
  });
  return out;
}

interface DryRunTable {
  table_name?: string;
  schema?: Array<{ name: string; data_type: string }>;
  rows?: Array<Array<{ value: unknown }>>;
}

/** The dry run's tables as tables; anything of another shape as JSON. */
function rowsView(results: unknown): HTMLElement {
  const host = el('div', { class: 'rows-out' });
  const tables = Array.isArray(results) ? (results as DryRunTable[]) : [];
  if (tables.length === 0 || !tables.every((t) => Array.isArray(t.schema) && Array.isArray(t.rows))) {
    host.appendChild(el('pre', {}, JSON.stringify(results, null, 2)));
    return host;
  }
  for (const t of tables) {
    const part = el('div', {});
    host.appendChild(part);
    renderTable(
      part,
      {
        columns: (t.schema ?? []).map((c) => ({ name: c.name, type: c.data_type })),
        rows: (t.rows ?? []).map((r) => r.map((cell) => cell?.value ?? null)),
      },
      t.table_name ?? 'dry-run',
    );
  }
  return host;
}

export function createPipelinesPage(host: HTMLElement): { refresh(): Promise<void> } {
  let serverError: { message: string; at: { line: number; column: number } | null } | null = null;
  const name = el('input', { type: 'text', value: 'my_pipeline', size: 20, spellcheck: 'false' });
  const editorHost = el('div', { class: 'editor yaml' });
  const samples = el('textarea', { rows: 5, cols: 60, spellcheck: 'false' }, SAMPLE_DATA);
  const status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const output = el('div', { class: 'dry-run' });
  const versions = el('div', { class: 'versions' });
  const view = createEditor({
    parent: editorHost,
    doc: SAMPLE_PIPELINE,
    label: 'Pipeline YAML',
    language: yamlSupport(),
    onRun: () => void runDry(),
    extra: [
      linter((v) => {
        const marks = yamlSyntaxDiagnostics(v);
        if (serverError !== null && marks.length === 0) {
          marks.push(diagnosticAt(v.state, serverError.message, serverError.at));
        }
        return marks;
      }),
    ],
  });

  function showError(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    // A pipeline that does not compile is marked in the editor; other refusals are shown below.
    if (err instanceof ApiError && message.includes('pipeline')) serverError = { message, at: err.position };
    replaceChildren(output, errorBox(message));
    forceLinting(view);
  }

  async function runDry(): Promise<void> {
    serverError = null;
    status.textContent = 'Running the pipeline…';
    try {
      const answer = await dryRun(textOf(view), samples.value);
      const traces = answer.trace ?? [];
      status.textContent = `Dry run: ${traces.length} records, ${answer.failures?.length ?? 0} failed`;
      replaceChildren(
        output,
        traces.map((t) =>
          el(
            'section',
            { class: 'trace' },
            el('h3', {}, `Record ${t.record + 1}`),
            el(
              'ol',
              {},
              t.steps.map((s) =>
                el(
                  'li',
                  { class: s.error ? 'step failed' : 'step' },
                  el('strong', {}, s.processor),
                  s.error
                    ? el('span', { class: 'error' }, ` ${s.error}`)
                    : s.dropped
                      ? ' dropped the record'
                      : el('pre', {}, JSON.stringify(s.output, null, 2)),
                ),
              ),
            ),
          ),
        ),
        el('h3', {}, 'Rows the pipeline makes'),
        rowsView(answer.results),
      );
    } catch (err) {
      status.textContent = 'Dry run failed';
      showError(err);
    }
  }

  async function save(): Promise<void> {
    try {
      const answer = await json<{ pipelines: Array<{ version: string }> }>(
        `v1/pipelines/${encodeURIComponent(name.value.trim())}`,
        { method: 'POST', headers: { 'content-type': 'application/x-yaml' }, body: textOf(view) },
      );
      status.textContent = `Saved ${name.value} version ${answer.pipelines[0]?.version ?? '?'}`;
      await refresh();
    } catch (err) {
      status.textContent = 'Save failed';
      showError(err);
    }
  }

  async function load(pipeline: string, version: string): Promise<void> {
    const answer = await json<{ pipelines: Array<{ pipeline: string }> }>(
      `v1/pipelines/${encodeURIComponent(pipeline)}?version=${encodeURIComponent(version)}`,
    );
    name.value = pipeline;
    setText(view, answer.pipelines[0]?.pipeline ?? '');
    status.textContent = `Loaded ${pipeline} version ${version}`;
  }

  async function remove(pipeline: string, version: string): Promise<void> {
    const res = await authedFetch(
      url(`v1/pipelines/${encodeURIComponent(pipeline)}?version=${encodeURIComponent(version)}`),
      {
        method: 'DELETE',
      },
    );
    status.textContent = res.ok ? `Deleted ${pipeline} version ${version}` : `Delete failed: ${res.status}`;
    await refresh();
  }

  async function refresh(): Promise<void> {
    try {
      // Asked first so that a server without pipelines answers no error.
      const exists = await sqlObjects(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'greptime_private' AND table_name = 'pipelines'",
      );
      // Versions are creation times; the text form is the one `?version=` takes back.
      const rows =
        exists.length === 0
          ? []
          : await sqlObjects(
              'SELECT name, CAST(created_at AS STRING) AS version FROM greptime_private.pipelines ORDER BY name, created_at DESC',
            );
      replaceChildren(
        versions,
        rows.length === 0
          ? el('p', {}, 'No pipeline saved yet.')
          : el(
              'table',
              { class: 'results' },
              el('caption', {}, 'Saved versions'),
              el(
                'thead',
                {},
                el(
                  'tr',
                  {},
                  ['Pipeline', 'Version', ''].map((h) => el('th', { scope: 'col' }, h)),
                ),
              ),
              el(
                'tbody',
                {},
                rows.map((r) => {
                  const p = String(r.name);
                  const v = String(r.version);
                  return el(
                    'tr',
                    {},
                    el('td', {}, p),
                    el('td', {}, v),
                    el(
                      'td',
                      {},
                      button('Load', () => void load(p, v), { 'aria-label': `Load ${p} ${v}` }),
                      button('Delete', () => void remove(p, v), { 'aria-label': `Delete ${p} ${v}` }),
                    ),
                  );
                }),
              ),
            ),
      );
    } catch (err) {
      replaceChildren(versions, errorBox(err instanceof Error ? err.message : String(err)));
    }
  }

  replaceChildren(
    host,
    el('h1', {}, 'Pipelines'),
    el('div', { class: 'controls' }, field('Pipeline name', name)),
    editorHost,
    el(
      'label',
      { class: 'block-label', for: 'pipeline-samples' },
      'Sample records (JSON array or one object per line)',
    ),
    samples,
    el(
      'div',
      { class: 'controls' },
      button('Dry run', () => void runDry(), { class: 'primary', title: 'Dry run (Ctrl+Enter)' }),
      button('Save as new version', () => void save()),
    ),
    status,
    output,
    el('h2', {}, 'Versions'),
    versions,
  );
  samples.id = 'pipeline-samples';
  return { refresh };
}
