/**
 * User providers: who may log in, with which password, in which permission mode.
 *
 * `user_provider` forms (GreptimeDB's):
 *   static_user_provider:cmd:admin=pw1,reader:ro=pw2   users inline; a bad entry stops start-up
 *   static_user_provider:file:<path>                   users read once at start-up
 *   watch_file_user_provider:<path>                    the same file format, reloaded on change
 * Entry / file line: `username=verifier` or `username:mode=verifier` (see verifiers.ts). Modes,
 * case-insensitive: rw/readwrite/read_write (default), ro/readonly/read_only, wo/writeonly/write_only.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { ConfigError } from '../../shared/config-load.js';
import { DbError, ErrorCode } from '../../shared/errors.js';
import { isSlowVerifier, parseVerifier, type Verifier, verifyPassword } from './verifiers.js';

/** What an authenticated user may do: read and write, read only, or write only. */
export type PermissionMode = 'rw' | 'ro' | 'wo';

/** The result of a successful login, carried on the request context. */
export interface AuthedUser {
  username: string;
  mode: PermissionMode;
}

/** A source of users. Throws DbError 1004/7000/7002 on a failed login. */
export interface UserProvider {
  readonly name: 'static_user_provider' | 'watch_file_user_provider';
  authenticate(username: string, password: string): AuthedUser;
  /** Stops watching the users file (no-op for static providers). Idempotent. */
  close(): void;
}

/** One parsed user entry. */
export interface UserEntry {
  verifier: Verifier;
  mode: PermissionMode;
}

/** A parsed credential line: `username[:mode]=verifier`. */
export interface CredentialLine extends UserEntry {
  username: string;
}

const MODES: Readonly<Record<string, PermissionMode>> = {
  rw: 'rw',
  readwrite: 'rw',
  read_write: 'rw',
  ro: 'ro',
  readonly: 'ro',
  read_only: 'ro',
  wo: 'wo',
  writeonly: 'wo',
  write_only: 'wo',
};

/** Parses a permission mode, case-insensitively; `undefined` if it is not one of the spellings. */
export function parseMode(text: string): PermissionMode | undefined {
  return Object.hasOwn(MODES, text.toLowerCase()) ? MODES[text.toLowerCase()] : undefined;
}

/**
 * Parses `username=verifier` or `username:mode=verifier`. Exactly one `=` (so passwords cannot
 * contain `=`), a non-empty username, a known mode and a well-formed verifier; else `undefined`.
 */
export function parseCredentialLine(line: string): CredentialLine | undefined {
  const parts = line.split('=');
  if (parts.length !== 2) return undefined;
  const [userPart = '', verifierText = ''] = parts;
  const colon = userPart.indexOf(':');
  const username = colon < 0 ? userPart : userPart.slice(0, colon);
  const mode = colon < 0 ? 'rw' : parseMode(userPart.slice(colon + 1));
  const verifier = parseVerifier(verifierText);
  if (username === '' || mode === undefined || verifier === undefined) return undefined;
  return { username, mode, verifier };
}

/**
 * A start-up problem with `user_provider`; messages never include a password. It is a ConfigError,
 * so whoever reports configuration errors at start-up reports this one the same way.
 */
export class UserProviderError extends ConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'UserProviderError';
  }
}

const SPEC_FORMAT =
  'user_provider must be in format `static_user_provider:cmd:<user>=<pwd>[,...]`, ' +
  '`static_user_provider:file:<path>` or `watch_file_user_provider:<path>`';

/**
 * Reads a users file: lines trimmed, blank and `#` lines skipped, invalid lines skipped with a
 * warning naming the line number (not its text, which may hold a password). Throws when the file is
 * missing, not a regular file, unreadable, or has no valid line.
 */
export function loadUsersFile(path: string, warn: (msg: string) => void): Map<string, UserEntry> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(path);
  } catch {
    throw new UserProviderError(`user provider file must exist: ${path}`);
  }
  if (!stat.isFile()) throw new UserProviderError(`user provider file must be a regular file: ${path}`);
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserProviderError(`cannot read user provider file ${path}: ${(err as Error).message}`);
  }
  const users = new Map<string, UserEntry>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const parsed = parseCredentialLine(line);
    if (parsed === undefined) {
      warn(
        `skipping invalid line ${index + 1} in user provider file ${path} ` +
          '(expected `username[:mode]=verifier`, mode rw/ro/wo)',
      );
      return;
    }
    users.set(parsed.username, { verifier: parsed.verifier, mode: parsed.mode });
  });
  if (users.size === 0) {
    throw new UserProviderError(`user provider file must contain at least one valid credential: ${path}`);
  }
  return users;
}

/** Parses `cmd:` entries; any invalid entry is an error naming only its username. */
function parseInlineUsers(entries: string): Map<string, UserEntry> {
  const users = new Map<string, UserEntry>();
  for (const raw of entries.split(',')) {
    const entry = raw.trim();
    const parsed = parseCredentialLine(entry);
    if (parsed === undefined) {
      const who = entry.split('=')[0]?.split(':')[0] ?? '';
      throw new UserProviderError(
        `invalid static_user_provider cmd entry for user ${JSON.stringify(who)}: ` +
          'cmd values must be in format `user[:mode]=pwd[,user[:mode]=pwd]`',
      );
    }
    users.set(parsed.username, { verifier: parsed.verifier, mode: parsed.mode });
  }
  return users;
}

/**
 * Per-process key for remembering successful slow logins. Only an HMAC of the password under this
 * random key is kept, so the memo reveals nothing a memory dump of a plain entry would not.
 */
const MEMO_KEY = randomBytes(32);

function memoDigest(password: string): Buffer {
  return createHmac('sha256', MEMO_KEY).update(password, 'utf8').digest();
}

/** The users table plus, per user, the digest of the last password that passed a slow verifier. */
class UserTable {
  private readonly lastGood = new Map<string, Buffer>();
  constructor(private readonly users: Map<string, UserEntry>) {}

  authenticate(username: string, password: string): AuthedUser {
    if (username === '') throw new DbError(ErrorCode.InvalidArguments, 'Illegal param: blank username');
    const entry = this.users.get(username);
    if (entry === undefined) {
      throw new DbError(ErrorCode.UserNotFound, `User not found, username: ${username}`);
    }
    if (password === '') throw new DbError(ErrorCode.InvalidArguments, 'Illegal param: blank password');
    if (!this.verify(username, entry.verifier, password)) {
      throw new DbError(ErrorCode.UserPasswordMismatch, `Username and password does not match, username: ${username}`);
    }
    return { username, mode: entry.mode };
  }

  /**
   * PBKDF2 costs milliseconds to a second per check and HTTP clients send credentials with every
   * request, so a success is remembered (one digest per user) and a repeat costs one HMAC. Failures
   * are not remembered: guessing stays as slow as the verifier makes it.
   */
  private verify(username: string, verifier: Verifier, password: string): boolean {
    if (!isSlowVerifier(verifier)) return verifyPassword(verifier, password);
    const digest = memoDigest(password);
    const remembered = this.lastGood.get(username);
    if (remembered !== undefined && timingSafeEqual(remembered, digest)) return true;
    if (!verifyPassword(verifier, password)) return false;
    this.lastGood.set(username, digest);
    return true;
  }
}

/** Default polling interval of the watch-file provider. */
export const WATCH_INTERVAL_MS = 1000;

/**
 * Builds the provider named by `user_provider`; `null` when it is unset or empty (no
 * authentication). Throws a UserProviderError for a malformed value, an invalid `cmd:` entry, or a
 * users file that is missing, not a regular file, or without any valid entry.
 *
 * The watch-file provider polls the file (`fs.watchFile`, which also survives editors that replace
 * the file by renaming). A reload that fails (file removed, emptied, unreadable) keeps the previous
 * users and warns: a broken edit must neither lock everyone out nor let everyone in.
 */
export function createUserProvider(
  spec: string | undefined,
  warn: (msg: string) => void,
  options: { watchIntervalMs?: number } = {},
): UserProvider | null {
  if (spec === undefined || spec === '') return null;
  const colon = spec.indexOf(':');
  if (colon < 0) throw new UserProviderError(SPEC_FORMAT);
  const name = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);

  if (name === 'static_user_provider') {
    const modeColon = rest.indexOf(':');
    const mode = modeColon < 0 ? rest : rest.slice(0, modeColon);
    const value = modeColon < 0 ? '' : rest.slice(modeColon + 1);
    let users: Map<string, UserEntry>;
    if (modeColon >= 0 && mode === 'cmd') users = parseInlineUsers(value);
    else if (modeColon >= 0 && mode === 'file' && value !== '') users = loadUsersFile(value, warn);
    else {
      throw new UserProviderError(
        'static_user_provider must be in format `static_user_provider:file:<path>` or `static_user_provider:cmd:<values>`',
      );
    }
    const table = new UserTable(users);
    return {
      name: 'static_user_provider',
      authenticate: (username, password) => table.authenticate(username, password),
      close: () => {},
    };
  }

  if (name === 'watch_file_user_provider') {
    if (rest === '') throw new UserProviderError(SPEC_FORMAT);
    return watchFileProvider(rest, warn, options.watchIntervalMs ?? WATCH_INTERVAL_MS);
  }

  throw new UserProviderError(SPEC_FORMAT);
}

function watchFileProvider(path: string, warn: (msg: string) => void, intervalMs: number): UserProvider {
  let table = new UserTable(loadUsersFile(path, warn));
  // Called whenever the file's stat changes, including removal (all-zero stats) and re-creation.
  const onChange = (): void => {
    try {
      table = new UserTable(loadUsersFile(path, warn));
    } catch (err) {
      warn(`cannot reload user provider file, keeping the previous users: ${(err as Error).message}`);
    }
  };
  // persistent: false, so that an open provider never keeps the process alive on its own.
  fs.watchFile(path, { interval: intervalMs, persistent: false }, onChange);
  // fs.watchFile takes its baseline stat asynchronously: an edit made between the load above and
  // that first stat would never count as a change. One reload after the first poll closes that gap.
  const settle = setTimeout(() => {
    if (!closed) onChange();
  }, intervalMs * 2);
  settle.unref();
  let closed = false;
  return {
    name: 'watch_file_user_provider',
    authenticate: (username, password) => table.authenticate(username, password),
    close: () => {
      if (closed) return;
      closed = true;
      clearTimeout(settle);
      fs.unwatchFile(path, onChange);
    },
  };
}
