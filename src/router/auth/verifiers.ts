/**
 * Password verifiers: the part after `=` in a user entry (`admin=pbkdf2_sha256:4096:...`).
 *
 * Formats, as GreptimeDB reads them:
 *   plain:<password>
 *   pbkdf2_sha256:<iterations>:<hex salt>:<hex 32-byte derived key>
 *   mysql_native_password:<hex 20-byte SHA1(SHA1(password))>   (an HTTP password cannot be checked
 *                                                                 against it: always a mismatch)
 *   pg_scram_sha256:<iterations>:<hex salt>:<hex StoredKey>:<hex ServerKey>   (RFC 5802 / 7677)
 *   anything else                                               (the whole text is the password)
 * A value that starts with one of these prefixes but is malformed is rejected, never retried as a
 * plain-text password: a typo in a hash must not turn the hash itself into the password.
 */
import { createHash, createHmac, pbkdf2Sync, timingSafeEqual } from 'node:crypto';

/** Iteration bounds for the PBKDF2-based verifiers; past the maximum a login would take seconds. */
export const ITERATIONS_MIN = 1;
export const ITERATIONS_MAX = 1_000_000;
/** Salt length bounds in bytes. */
export const SALT_BYTES_MIN = 1;
export const SALT_BYTES_MAX = 1024;

const SHA256_BYTES = 32;
const SHA1_BYTES = 20;

/** A parsed verifier. Buffers hold raw bytes (decoded from hex). */
export type Verifier =
  | { kind: 'plain'; password: string }
  | { kind: 'pbkdf2_sha256'; iterations: number; salt: Buffer; hash: Buffer }
  | { kind: 'mysql_native_password'; hashStage2: Buffer }
  | { kind: 'pg_scram_sha256'; iterations: number; salt: Buffer; storedKey: Buffer; serverKey: Buffer };

/** Strict hex: even length, hex digits only (Node's Buffer.from would silently stop at junk). */
function hexBytes(text: string | undefined): Buffer | undefined {
  if (text === undefined || text.length % 2 !== 0 || !/^[0-9A-Fa-f]*$/.test(text)) return undefined;
  return Buffer.from(text, 'hex');
}

function iterationCount(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,7}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= ITERATIONS_MIN && n <= ITERATIONS_MAX ? n : undefined;
}

function saltBytes(text: string | undefined): Buffer | undefined {
  const salt = hexBytes(text);
  return salt !== undefined && salt.length >= SALT_BYTES_MIN && salt.length <= SALT_BYTES_MAX ? salt : undefined;
}

function digestBytes(text: string | undefined, length: number): Buffer | undefined {
  const bytes = hexBytes(text);
  return bytes !== undefined && bytes.length === length ? bytes : undefined;
}

/** Parses a verifier; `undefined` when a prefixed form is malformed (the entry is then invalid). */
export function parseVerifier(text: string): Verifier | undefined {
  if (text.startsWith('plain:')) return { kind: 'plain', password: text.slice('plain:'.length) };

  if (text.startsWith('pbkdf2_sha256:')) {
    const parts = text.slice('pbkdf2_sha256:'.length).split(':');
    if (parts.length !== 3) return undefined;
    const iterations = iterationCount(parts[0]);
    const salt = saltBytes(parts[1]);
    const hash = digestBytes(parts[2], SHA256_BYTES);
    if (iterations === undefined || salt === undefined || hash === undefined) return undefined;
    return { kind: 'pbkdf2_sha256', iterations, salt, hash };
  }

  if (text.startsWith('mysql_native_password:')) {
    const hashStage2 = digestBytes(text.slice('mysql_native_password:'.length), SHA1_BYTES);
    return hashStage2 === undefined ? undefined : { kind: 'mysql_native_password', hashStage2 };
  }

  if (text.startsWith('pg_scram_sha256:')) {
    const parts = text.slice('pg_scram_sha256:'.length).split(':');
    if (parts.length !== 4) return undefined;
    const iterations = iterationCount(parts[0]);
    const salt = saltBytes(parts[1]);
    const storedKey = digestBytes(parts[2], SHA256_BYTES);
    const serverKey = digestBytes(parts[3], SHA256_BYTES);
    if (iterations === undefined || salt === undefined || storedKey === undefined || serverKey === undefined) {
      return undefined;
    }
    return { kind: 'pg_scram_sha256', iterations, salt, storedKey, serverKey };
  }

  return { kind: 'plain', password: text };
}

/** Whether checking this verifier is expensive enough (key stretching) to be worth remembering. */
export function isSlowVerifier(verifier: Verifier): boolean {
  return verifier.kind === 'pbkdf2_sha256' || verifier.kind === 'pg_scram_sha256';
}

/**
 * Checks a plain-text password (what HTTP Basic carries) against a verifier, in constant time with
 * respect to the stored secret. PBKDF2 work is synchronous: up to ITERATIONS_MAX rounds block the
 * event loop for about a second, which is why the user provider remembers recent successes.
 */
export function verifyPassword(verifier: Verifier, password: string): boolean {
  switch (verifier.kind) {
    case 'plain': {
      // Hash both sides so that the comparison neither needs equal lengths nor leaks the length.
      const expected = createHash('sha256').update(verifier.password, 'utf8').digest();
      const actual = createHash('sha256').update(password, 'utf8').digest();
      return timingSafeEqual(expected, actual);
    }
    case 'pbkdf2_sha256': {
      const actual = pbkdf2Sync(password, verifier.salt, verifier.iterations, verifier.hash.length, 'sha256');
      return timingSafeEqual(verifier.hash, actual);
    }
    case 'mysql_native_password':
      // The double-SHA1 form can only check a MySQL challenge response, never a plain password.
      return false;
    case 'pg_scram_sha256': {
      // RFC 5802: SaltedPassword = Hi(password, salt, i); ClientKey = HMAC(SaltedPassword,
      // "Client Key"); StoredKey = H(ClientKey). The server key is kept for SCRAM logins only.
      const salted = pbkdf2Sync(password, verifier.salt, verifier.iterations, SHA256_BYTES, 'sha256');
      const clientKey = createHmac('sha256', salted).update('Client Key').digest();
      const storedKey = createHash('sha256').update(clientKey).digest();
      return timingSafeEqual(verifier.storedKey, storedKey);
    }
  }
}
