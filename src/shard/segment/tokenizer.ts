/**
 * Turns text into the terms a segment's full-text index stores and a query looks up.
 *
 * A *word character* is one UTF-16 code unit that is a Unicode letter or digit, judged unit by
 * unit exactly as `matches_term` judges its boundaries (so a lone surrogate is a separator). That
 * is what makes index pruning safe: when `matches_term(text, term)` holds, every word run of the
 * term is a whole word run of the text, and analyzing equal runs gives equal tokens, so
 * `tokenize(term) ⊆ tokenize(text)`. The index may say "maybe" for a block that has no matching
 * row (rows are still evaluated exactly), never "no" for one that has.
 *
 * - `English`: each maximal run of word characters is a token.
 * - `Chinese`: a simplification of a real Chinese segmenter: inside each run, every Han character
 *   is a token of its own and each maximal run of other word characters is one token
 *   (`错误error日志` → 错, 误, error, 日, 志). A phrase like `手机号` is then found through its
 *   characters, which over-selects blocks but never misses one.
 * - `none`: the whole value is the one term (inverted and skipping indexes).
 *
 * Without `caseSensitive`, tokens are lower-cased after splitting (the same on both sides).
 */
import type { IndexAnalyzer } from '../../shared/column-index.js';

/** 0 = not computed, 1 = separator, 2 = word character, 3 = Han word character; per code unit. */
const classes = new Uint8Array(65536);
const WORD_PATTERN = /^[\p{L}\p{N}]$/u;
const HAN_PATTERN = /^\p{Script=Han}$/u;

function classOf(unit: number): number {
  let c = classes[unit] as number;
  if (c === 0) {
    const ch = String.fromCharCode(unit);
    c = !WORD_PATTERN.test(ch) ? 1 : HAN_PATTERN.test(ch) ? 3 : 2;
    classes[unit] = c;
  }
  return c;
}

function isAsciiWord(unit: number): boolean {
  return (unit >= 48 && unit <= 57) || (unit >= 65 && unit <= 90) || (unit >= 97 && unit <= 122);
}

/**
 * Calls `emit(start, end)` with the UTF-16 range of each token of `text` before case folding
 * (`foldsCase`; duplicates included, in text order); allocates nothing. `forEachToken` is this with the
 * token strings made.
 */
export function forEachTokenRange(
  text: string,
  analyzer: IndexAnalyzer,
  emit: (start: number, end: number) => void,
): void {
  const n = text.length;
  if (analyzer === 'none') {
    emit(0, n);
    return;
  }
  const chinese = analyzer === 'Chinese';
  let start = -1;
  for (let i = 0; i < n; i++) {
    const unit = text.charCodeAt(i);
    const c = unit < 128 ? (isAsciiWord(unit) ? 2 : 1) : classOf(unit);
    if (c === 1) {
      if (start >= 0) emit(start, i);
      start = -1;
    } else if (c === 3 && chinese) {
      if (start >= 0) emit(start, i);
      start = -1;
      emit(i, i + 1);
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) emit(start, n);
}

/** Whether tokens are lower-cased: not when case sensitive, nor a whole value (`none`). */
export function foldsCase(analyzer: IndexAnalyzer, caseSensitive: boolean): boolean {
  return !caseSensitive && analyzer !== 'none';
}

/** Token `[start, end)` of `text` as the index stores it (`caseSensitive`: kept as written). */
export function tokenAt(text: string, start: number, end: number, caseSensitive: boolean): string {
  const token = text.slice(start, end);
  return caseSensitive ? token : token.toLowerCase();
}

/**
 * Calls `emit` with each token of `text` (duplicates included, in text order). Allocation-free
 * apart from the token strings themselves.
 */
export function forEachToken(
  text: string,
  analyzer: IndexAnalyzer,
  caseSensitive: boolean,
  emit: (token: string) => void,
): void {
  const exact = !foldsCase(analyzer, caseSensitive);
  forEachTokenRange(text, analyzer, (start, end) => emit(tokenAt(text, start, end, exact)));
}

/** The distinct tokens of `text`, in first-seen order. */
export function tokenize(text: string, analyzer: IndexAnalyzer, caseSensitive: boolean): string[] {
  const seen = new Set<string>();
  forEachToken(text, analyzer, caseSensitive, (t) => seen.add(t));
  return [...seen];
}
