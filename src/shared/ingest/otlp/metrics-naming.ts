/**
 * OTLP metric and attribute names → table (metric) and tag (label) names (reference ingest §3.3),
 * under the four translation strategies of the `x-greptime-otlp-metric-translation-strategy`
 * header. The rules are Prometheus' OTLP translator's (prometheus/otlptranslator), as GreptimeDB
 * applies them:
 *
 *   UnderscoreEscapingWithSuffixes (default)  `http.server.duration` ms histogram
 *                                             → `http_server_duration_milliseconds`
 *   UnderscoreEscapingWithoutSuffixes         → `http_server_duration`
 *   NoUTF8EscapingWithSuffixes                → `http.server.duration_milliseconds`
 *   NoTranslation                             → `http.server.duration`
 *
 * Table suffixes of histograms and summaries (`_bucket`, `_sum`, `_count`) come after these.
 */
import { InvalidArgument } from '../../errors.js';

export const TRANSLATION_STRATEGIES = [
  'UnderscoreEscapingWithSuffixes',
  'UnderscoreEscapingWithoutSuffixes',
  'NoUTF8EscapingWithSuffixes',
  'NoTranslation',
] as const;

export type TranslationStrategy = (typeof TRANSLATION_STRATEGIES)[number];

/** What kind of metric a name is built for: it decides the `_total` and `_ratio` suffixes. */
export type NamedMetricKind = 'gauge' | 'monotonic-sum' | 'sum' | 'histogram' | 'summary';

/** The strategy a header value names; absent or empty means the default. Unknown names are 400. */
export function parseTranslationStrategy(header: string | undefined): TranslationStrategy {
  const value = header?.trim() ?? '';
  if (value === '') return 'UnderscoreEscapingWithSuffixes';
  const found = TRANSLATION_STRATEGIES.find((s) => s === value);
  if (!found) {
    throw new InvalidArgument(
      `Invalid OTLP metric translation strategy: ${value}; expected one of ${TRANSLATION_STRATEGIES.join(', ')}`,
    );
  }
  return found;
}

/** Whether the strategy replaces characters outside `[A-Za-z0-9_]` in names. */
export function escapesNames(strategy: TranslationStrategy): boolean {
  return strategy === 'UnderscoreEscapingWithSuffixes' || strategy === 'UnderscoreEscapingWithoutSuffixes';
}

/** Whether the strategy adds unit and type suffixes. */
export function addsSuffixes(strategy: TranslationStrategy): boolean {
  return strategy === 'UnderscoreEscapingWithSuffixes' || strategy === 'NoUTF8EscapingWithSuffixes';
}

/** UCUM units (OTLP) → the words Prometheus puts in metric names. `1` adds nothing. */
const UNIT_WORDS: ReadonlyMap<string, string> = new Map([
  ['d', 'days'],
  ['h', 'hours'],
  ['min', 'minutes'],
  ['s', 'seconds'],
  ['ms', 'milliseconds'],
  ['us', 'microseconds'],
  ['ns', 'nanoseconds'],
  ['By', 'bytes'],
  ['KiBy', 'kibibytes'],
  ['MiBy', 'mebibytes'],
  ['GiBy', 'gibibytes'],
  ['TiBy', 'tibibytes'],
  ['KBy', 'kilobytes'],
  ['MBy', 'megabytes'],
  ['GBy', 'gigabytes'],
  ['TBy', 'terabytes'],
  ['m', 'meters'],
  ['V', 'volts'],
  ['A', 'amperes'],
  ['J', 'joules'],
  ['W', 'watts'],
  ['g', 'grams'],
  ['Cel', 'celsius'],
  ['Hz', 'hertz'],
  ['1', ''],
  ['%', 'percent'],
]);

/** The denominators of `a/b` units. */
const PER_UNIT_WORDS: ReadonlyMap<string, string> = new Map([
  ['s', 'second'],
  ['m', 'minute'],
  ['h', 'hour'],
  ['d', 'day'],
  ['w', 'week'],
  ['mo', 'month'],
  ['y', 'year'],
]);

const NOT_ALPHANUMERIC = /[^A-Za-z0-9]/;
const NOT_ALPHANUMERIC_GLOBAL = /[^A-Za-z0-9]/g;

/** Splits on every character outside `[A-Za-z0-9]` and drops the empty pieces. */
function tokensOf(text: string): string[] {
  return text.split(NOT_ALPHANUMERIC).filter((t) => t !== '');
}

/** One side of a unit as a name word: mapped if known, else cleaned; annotations (`{req}`) give none. */
function unitWord(unit: string, words: ReadonlyMap<string, string>): string {
  const u = unit.trim();
  if (u === '' || u.includes('{') || u.includes('}')) return '';
  return tokensOf(words.get(u) ?? u).join('_');
}

/** The main and per-unit words of a unit: `By/s` → `bytes`, `second`. */
export function unitWords(unit: string): { main: string; per: string } {
  const slash = unit.indexOf('/');
  const main = slash < 0 ? unit : unit.slice(0, slash);
  const per = slash < 0 ? '' : unit.slice(slash + 1);
  return { main: unitWord(main, UNIT_WORDS), per: unitWord(per, PER_UNIT_WORDS) };
}

/** The unit as the metadata API reports it: `seconds`, `bytes_per_second`, or empty. */
export function prometheusUnit(unit: string): string {
  const { main, per } = unitWords(unit);
  if (per === '') return main;
  return main === '' ? `per_${per}` : `${main}_per_${per}`;
}

/**
 * The metric (table) name of an OTLP metric, before any `_bucket`/`_sum`/`_count` suffix. Empty
 * when nothing of the name survives escaping (`...`): the caller rejects the metric's points.
 */
export function metricNameOf(name: string, unit: string, kind: NamedMetricKind, strategy: TranslationStrategy): string {
  const suffixes = addsSuffixes(strategy);
  const { main, per } = suffixes ? unitWords(unit) : { main: '', per: '' };
  const total = suffixes && kind === 'monotonic-sum';
  const ratio = suffixes && kind === 'gauge' && unit === '1';
  if (escapesNames(strategy)) {
    let tokens = tokensOf(name);
    if (tokens.length === 0) return '';
    if (main !== '' && !tokens.includes(main)) tokens.push(main);
    if (per !== '' && !tokens.includes(per)) tokens.push('per', per);
    if (total) tokens = [...tokens.filter((t) => t !== 'total'), 'total'];
    if (ratio) tokens = [...tokens.filter((t) => t !== 'ratio'), 'ratio'];
    const joined = tokens.join('_');
    return /^[0-9]/.test(joined) ? `_${joined}` : joined;
  }
  // UTF-8 names are kept; suffixes are appended unless the name already ends with them.
  let out = name;
  if (out === '') return '';
  if (main !== '' && !out.endsWith(main)) out += `_${main}`;
  if (per !== '' && !out.endsWith(`per_${per}`)) out += `_per_${per}`;
  if (total && !out.endsWith('_total')) out += '_total';
  if (ratio && !out.endsWith('_ratio')) out += '_ratio';
  return out;
}

/**
 * The tag name of an attribute key. Escaping strategies replace each character outside
 * `[A-Za-z0-9]` with `_`, prefix `key_` to a leading digit and `key` to a single leading `_`
 * (`__x` stays reserved-looking, as in Prometheus). UTF-8 strategies keep the key. Empty stays
 * empty: the caller rejects the point.
 */
export function labelNameOf(key: string, strategy: TranslationStrategy): string {
  if (key === '' || !escapesNames(strategy)) return key;
  let name = escapedLabelNames.get(key);
  if (name === undefined) {
    name = escapeLabelName(key);
    // Attribute keys repeat on every point; a bounded memo spares the regex work.
    if (escapedLabelNames.size >= ESCAPED_LABEL_NAMES_MAX) escapedLabelNames.clear();
    escapedLabelNames.set(key, name);
  }
  return name;
}

const ESCAPED_LABEL_NAMES_MAX = 10_000;
const escapedLabelNames = new Map<string, string>();

function escapeLabelName(key: string): string {
  const escaped = key.replace(NOT_ALPHANUMERIC_GLOBAL, '_');
  if (/^[0-9]/.test(escaped)) return `key_${escaped}`;
  if (escaped.startsWith('_') && !escaped.startsWith('__')) return `key${escaped}`;
  return escaped;
}
