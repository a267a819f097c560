/**
 * JSON.parse loses integers above 2^53, and ShoalDB returns nanosecond timestamps and 64-bit
 * integers as JSON integers. This parses such integers as strings (decimal text) instead, so
 * tests can compare them exactly.
 */
export function parseJsonExact(text: string): unknown {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j] as string)) j++;
      const num = text.slice(i, j);
      const isBigInt = /^-?\d+$/.test(num) && !Number.isSafeInteger(Number(num));
      out += isBigInt ? `"${num}"` : num;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return JSON.parse(out);
}

/** JSON.parse, or undefined for text that is not JSON (error bodies of some routes are plain text). */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
