/** CodeMirror 6 editors: SQL, PromQL (the Prometheus project's language support) and YAML. */
import { PostgreSQL, type SQLNamespace, sql as sqlLanguage } from '@codemirror/lang-sql';
import { yaml } from '@codemirror/lang-yaml';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { Compartment, type EditorState, type Extension, Prec } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { PromQLExtension } from '@prometheus-io/codemirror-promql';
import { basicSetup, EditorView } from 'codemirror';
import { authedFetch, ROOT } from './api';

export interface EditorOptions {
  parent: HTMLElement;
  doc: string;
  /** The accessible name of the text area. */
  label: string;
  language: Extension;
  onRun?: () => void;
  extra?: Extension[];
}

const theme = EditorView.theme({
  '&': { fontSize: '14px', border: '1px solid var(--border)', borderRadius: '4px', background: 'var(--bg)' },
  '&.cm-focused': { outline: '2px solid var(--accent)' },
  '.cm-scroller': { fontFamily: 'var(--mono)', minHeight: '6em', maxHeight: '24em' },
  // The default gutter grey is too faint to read (and fails contrast checks).
  '.cm-gutters': { color: 'var(--muted)', background: 'var(--panel)', borderRight: '1px solid var(--border)' },
});

export function createEditor(opts: EditorOptions): EditorView {
  const run: Extension = opts.onRun
    ? Prec.highest(
        keymap.of([
          {
            key: 'Mod-Enter',
            run: () => {
              opts.onRun?.();
              return true;
            },
          },
        ]),
      )
    : [];
  return new EditorView({
    doc: opts.doc,
    parent: opts.parent,
    extensions: [
      run,
      basicSetup,
      lintGutter(),
      theme,
      opts.language,
      EditorView.lineWrapping,
      // tabindex only states what contenteditable already does, for checkers that look for it.
      EditorView.contentAttributes.of({ 'aria-label': opts.label, tabindex: '0' }),
      ...(opts.extra ?? []),
    ],
  });
}

/** SQL with completion of our tables and columns, which arrive after the catalog is read. */
export function sqlSupport(): { extension: Extension; setSchema: (view: EditorView, schema: SQLNamespace) => void } {
  const compartment = new Compartment();
  const make = (schema: SQLNamespace) => sqlLanguage({ dialect: PostgreSQL, schema, upperCaseKeywords: true });
  return {
    extension: compartment.of(make({})),
    setSchema: (view, schema) => view.dispatch({ effects: compartment.reconfigure(make(schema)) }),
  };
}

/** PromQL, completing metric, label and function names from our own Prometheus API. */
export function promqlSupport(): Extension {
  return new PromQLExtension()
    .setComplete({
      remote: {
        url: new URL('v1/metricsapi', ROOT).toString(),
        fetchFn: (input, init) => authedFetch(String(input), init),
        cache: { maxAge: 60_000 },
      },
    })
    .asExtension();
}

export function yamlSupport(): Extension {
  return yaml();
}

/**
 * A marker where the server says the text went wrong (1-based line and column), over the word
 * that starts there; the whole text when the server gave no position.
 */
export function diagnosticAt(
  state: EditorState,
  message: string,
  at: { line: number; column: number } | null,
): Diagnostic {
  const doc = state.doc;
  if (at === null) return { from: 0, to: Math.min(doc.line(1).to, doc.length), severity: 'error', message };
  const line = doc.line(Math.min(Math.max(at.line, 1), doc.lines));
  let from = Math.min(line.from + Math.max(at.column - 1, 0), line.to);
  if (from === line.to && from > line.from) from -= 1;
  const word = /^\w+/.exec(state.sliceDoc(from, line.to));
  const to = Math.min(from + (word ? word[0].length : 1), line.to);
  return { from, to: Math.max(to, from), severity: 'error', message };
}

export function markError(view: EditorView, message: string, at: { line: number; column: number } | null): void {
  view.dispatch(setDiagnostics(view.state, [diagnosticAt(view.state, message, at)]));
}

export function clearErrors(view: EditorView): void {
  view.dispatch(setDiagnostics(view.state, []));
}

export function textOf(view: EditorView): string {
  return view.state.doc.toString();
}

export function setText(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}
