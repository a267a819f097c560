/**
 * How deep client JSON may nest objects and arrays: serde_json's recursion limit, which
 * GreptimeDB's readers keep. Checked on the text before JSON.parse, since what walks a parsed
 * document afterwards (flattening, JSON text, OTLP conversion) recurses and would otherwise run
 * out of stack on a document thousands of levels deep (found by fuzz probes: 500s).
 */
export const JSON_DEPTH_MAX = 128;

export const JSON_TOO_DEEP = `recursion limit exceeded (objects and arrays nested deeper than ${JSON_DEPTH_MAX})`;

/** Where the JSON string starting at `pos` (its opening quote) ends: after its closing quote. */
export function jsonStringEnd(text: string, pos: number): number {
  for (let i = pos + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return text.length;
}

/** Whether the JSON text in `[pos, end)` nests objects and arrays deeper than JSON_DEPTH_MAX. */
export function nestedTooDeep(text: string, pos = 0, end = text.length): boolean {
  let depth = 0;
  for (let i = pos; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = jsonStringEnd(text, i) - 1;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > JSON_DEPTH_MAX) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
