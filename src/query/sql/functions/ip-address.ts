/**
 * IPv4/IPv6 text ↔ number conversions shared by the ip-* functions. Parsing is as strict as
 * Rust's `Ipv4Addr`/`Ipv6Addr::from_str` (GreptimeDB's parsers): four decimal octets without
 * leading zeros; IPv6 with at most one `::` and an optional dotted IPv4 tail. Printing follows
 * Rust's `Display`: lower-case hex, the longest run of two or more zero groups as `::`, and
 * IPv4-mapped addresses as `::ffff:a.b.c.d`.
 */

const OCTET = /^(0|[1-9][0-9]{0,2})$/;

/** The address as a 32-bit number, or null when the text is not a dotted IPv4 address. */
export function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let out = 0;
  for (const p of parts) {
    if (!OCTET.test(p) || Number(p) > 255) return null;
    out = out * 256 + Number(p);
  }
  return out;
}

/** Dotted text of a 32-bit number. */
export function formatIpv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

function parseGroups(text: string): number[] | null {
  if (text === '') return [];
  const out: number[] = [];
  const parts = text.split(':');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as string;
    if (i === parts.length - 1 && p.includes('.')) {
      const v4 = parseIpv4(p);
      if (v4 === null) return null;
      out.push(Math.floor(v4 / 65536), v4 % 65536);
    } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) {
      out.push(Number.parseInt(p, 16));
    } else {
      return null;
    }
  }
  return out;
}

/** The 16 bytes of an IPv6 address, or null when the text is not one. */
export function parseIpv6(text: string): Uint8Array | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = parseGroups(halves[0] as string);
  const tail = halves.length === 2 ? parseGroups(halves[1] as string) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/** Rust's text of an IPv6 address. */
export function formatIpv6(bytes: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number));
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `::ffff:${Array.from(bytes.slice(12)).join('.')}`;
  }
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (bestLength < 2) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/** Keeps the first `prefix` bits of an address's bytes and zeroes the rest. */
export function maskBytes(bytes: Uint8Array, prefix: number): Uint8Array {
  return bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, prefix - 8 * i));
    return keep === 0 ? 0 : b & ((0xff << (8 - keep)) & 0xff);
  });
}
