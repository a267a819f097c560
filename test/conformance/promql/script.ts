/**
 * Reads Prometheus' PromQL test scripts (shared/conformance/README.md §1.2–1.4) into commands:
 * `load` blocks, `clear`, and `eval` cases with their expectations.
 */

import { parseGoNumber } from '../../../src/query/promql/go-format.js';
import { parseScriptDuration, parseSeriesLine, type SeriesDescription } from './series.js';

export interface LoadCommand {
  kind: 'load';
  line: number;
  intervalMs: number;
  series: SeriesDescription[];
  /** `load_with_nhcb`: classic histograms are also loaded as native histograms with custom buckets. */
  withNhcb: boolean;
}

export interface ClearCommand {
  kind: 'clear';
  line: number;
}

/** `expect warn|info ...`: a bare presence check, an exact message or a regex. */
export interface AnnotationExpectation {
  kind: 'warn' | 'info';
  message?: string;
  regex?: string;
}

export interface EvalCase {
  kind: 'eval';
  line: number;
  query: string;
  instant: boolean;
  /** Instant time, or range start. */
  startMs: number;
  endMs: number;
  stepMs: number;
  fail: boolean;
  failMessage?: string;
  failRegex?: string;
  ordered: boolean;
  annotations: AnnotationExpectation[];
  noWarn: boolean;
  noInfo: boolean;
  /** `expect range vector from a to b step s` for an instant query. */
  rangeVector?: { startMs: number; endMs: number; stepMs: number };
  expectedString?: string;
  expectedScalar?: number;
  series: { description: SeriesDescription; raw: string }[];
}

export type Command = LoadCommand | ClearCommand | EvalCase;

const EVAL_HEADER = /^(eval(?:_fail|_warn|_info|_ordered)?)\s+(instant|range)\s+(.*)$/;

function unquoteExpectedString(text: string): string {
  if (text.startsWith('`') && text.endsWith('`')) return text.slice(1, -1);
  return JSON.parse(text) as string;
}

export function parseScript(source: string): Command[] {
  const lines = source.split('\n').map((l) => l.trim());
  const commands: Command[] = [];
  let i = 0;
  const isBlank = (l: string | undefined): boolean => l === undefined || l === '' || l.startsWith('#');
  while (i < lines.length) {
    const line = lines[i] as string;
    const lineNumber = i + 1;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const word = (line.split(/\s+/)[0] as string).toLowerCase();
    if (word === 'clear') {
      commands.push({ kind: 'clear', line: lineNumber });
      i++;
      continue;
    }
    if (word === 'load' || word === 'load_with_nhcb') {
      const intervalMs = parseScriptDuration(line.split(/\s+/)[1] as string);
      const series: SeriesDescription[] = [];
      i++;
      while (!isBlank(lines[i])) {
        const body = lines[i] as string;
        // Start-timestamp lines (`name@st ...`) are not used by the visible files; skip them.
        if (!/^[^\s{]*@st\b/.test(body)) series.push(parseSeriesLine(body));
        i++;
      }
      commands.push({ kind: 'load', line: lineNumber, intervalMs, series, withNhcb: word === 'load_with_nhcb' });
      continue;
    }
    const header = EVAL_HEADER.exec(line);
    if (!header) throw new Error(`line ${lineNumber}: unknown command ${JSON.stringify(line)}`);
    const variant = header[1] as string;
    const rest = header[3] as string;
    const evalCase: EvalCase = {
      kind: 'eval',
      line: lineNumber,
      query: '',
      instant: header[2] === 'instant',
      startMs: 0,
      endMs: 0,
      stepMs: 0,
      fail: variant === 'eval_fail',
      ordered: variant === 'eval_ordered',
      annotations: [],
      noWarn: false,
      noInfo: false,
      series: [],
    };
    if (variant === 'eval_warn') evalCase.annotations.push({ kind: 'warn' });
    if (variant === 'eval_info') evalCase.annotations.push({ kind: 'info' });
    if (evalCase.instant) {
      const m = /^at\s+(\S+)\s+(.*)$/.exec(rest);
      if (!m) throw new Error(`line ${lineNumber}: bad instant eval`);
      evalCase.startMs = parseScriptDuration(m[1] as string);
      evalCase.endMs = evalCase.startMs;
      evalCase.query = m[2] as string;
    } else {
      const m = /^from\s+(\S+)\s+to\s+(\S+)\s+step\s+(\S+)\s+(.*)$/.exec(rest);
      if (!m) throw new Error(`line ${lineNumber}: bad range eval`);
      evalCase.startMs = parseScriptDuration(m[1] as string);
      evalCase.endMs = parseScriptDuration(m[2] as string);
      evalCase.stepMs = parseScriptDuration(m[3] as string);
      evalCase.query = m[4] as string;
    }
    i++;
    while (!isBlank(lines[i])) {
      const body = lines[i] as string;
      i++;
      if (body.startsWith('expected_fail_message ')) {
        evalCase.failMessage = body.slice('expected_fail_message '.length).trim();
        break;
      }
      if (body.startsWith('expected_fail_regexp ')) {
        evalCase.failRegex = body.slice('expected_fail_regexp '.length).trim();
        break;
      }
      if ((body.split(/\s+/)[0] as string) === 'expect') {
        parseExpect(evalCase, body.slice('expect'.length).trim(), lineNumber);
        continue;
      }
      // promqltest reads a scalar line with Go's ParseInt(s, 0, 64), then ParseFloat.
      const scalar = /\s/.test(body) ? null : parseGoNumber(body);
      if (scalar !== null) {
        evalCase.expectedScalar = scalar;
        break;
      }
      evalCase.series.push({ description: parseSeriesLine(body), raw: body });
    }
    commands.push(evalCase);
  }
  return commands;
}

function parseExpect(evalCase: EvalCase, text: string, lineNumber: number): void {
  if (text === 'fail') {
    evalCase.fail = true;
    return;
  }
  const fail = /^fail\s+(msg|regex):\s?(.*)$/.exec(text);
  if (fail) {
    evalCase.fail = true;
    if (fail[1] === 'msg') evalCase.failMessage = (fail[2] as string).trim();
    else evalCase.failRegex = (fail[2] as string).trim();
    return;
  }
  if (text === 'no_warn') {
    evalCase.noWarn = true;
    return;
  }
  if (text === 'no_info') {
    evalCase.noInfo = true;
    return;
  }
  if (text === 'ordered') {
    evalCase.ordered = true;
    return;
  }
  const annotation = /^(warn|info)(?:\s+(msg|regex):\s?(.*))?$/.exec(text);
  if (annotation) {
    const expectation: AnnotationExpectation = { kind: annotation[1] as 'warn' | 'info' };
    if (annotation[2] === 'msg') expectation.message = (annotation[3] as string).trim();
    if (annotation[2] === 'regex') expectation.regex = (annotation[3] as string).trim();
    evalCase.annotations.push(expectation);
    return;
  }
  const range = /^range vector from\s+(\S+)\s+to\s+(\S+)\s+step\s+(\S+)$/.exec(text);
  if (range) {
    evalCase.rangeVector = {
      startMs: parseScriptDuration(range[1] as string),
      endMs: parseScriptDuration(range[2] as string),
      stepMs: parseScriptDuration(range[3] as string),
    };
    return;
  }
  const str = /^string\s+(.*)$/.exec(text);
  if (str) {
    evalCase.expectedString = unquoteExpectedString((str[1] as string).trim());
    return;
  }
  throw new Error(`line ${lineNumber}: unknown expectation ${JSON.stringify(text)}`);
}
