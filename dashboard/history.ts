/** Queries run from this browser, newest first, kept in localStorage. */

export interface HistoryEntry {
  language: 'sql' | 'promql';
  query: string;
  at: number;
}

const KEY = 'shoaldb.history';
const MAX = 50;

export function loadHistory(): HistoryEntry[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(parsed) ? (parsed as HistoryEntry[]) : [];
  } catch {
    return [];
  }
}

export function remember(language: HistoryEntry['language'], query: string): HistoryEntry[] {
  const trimmed = query.trim();
  const rest = loadHistory().filter((e) => !(e.language === language && e.query === trimmed));
  const next = [{ language, query: trimmed, at: Date.now() }, ...rest].slice(0, MAX);
  localStorage.setItem(KEY, JSON.stringify(next));
  return next;
}

export function clearHistory(): void {
  localStorage.removeItem(KEY);
}
