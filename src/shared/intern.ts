/**
 * One string object per distinct text, for the keys series are grouped by. Bounded: past the
 * limit it starts over (strings already handed out stay valid; only sharing is lost).
 */
const interned = new Map<string, string>();
export function intern(text: string): string {
  const known = interned.get(text);
  if (known !== undefined) return known;
  if (interned.size >= 65_536) interned.clear();
  interned.set(text, text);
  return text;
}
