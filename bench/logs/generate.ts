/**
 * Pre-generated, real-looking log lines for the log bench: nginx combined access lines, syslog
 * lines and JSON application logs with nested fields. Deterministic (seeded), so runs compare.
 * A rare term (`RARE_TERM`) appears in about one access line in a million, for the search bench.
 */

export const RARE_TERM = 'zebraquokka';
export const RARE_EVERY = 1_000_003;

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const METHODS = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE', 'HEAD'];
const PATHS = [
  '/',
  '/index.html',
  '/api/v1/orders',
  '/api/v1/users/{id}',
  '/static/js/app.{id}.js',
  '/static/css/site.css',
  '/login',
  '/logout',
  '/search?q={word}',
  '/products/{id}',
  '/cart',
  '/checkout',
  '/api/v2/metrics',
  '/healthz',
];
const WORDS = ['shoes', 'laptop', 'coffee', 'garden', 'camera', 'bicycle', 'guitar', 'lamp', 'desk', 'phone'];
const STATUSES = [200, 200, 200, 200, 200, 304, 301, 404, 500, 502, 201];
const AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
  'curl/8.5.0',
  'Go-http-client/1.1',
  'Prometheus/2.48.0',
];
const REFERERS = ['-', 'https://www.example.com/', 'https://www.google.com/search?q=shop', '-', '-'];
const SERVICES = ['checkout', 'payments', 'inventory', 'auth', 'search', 'frontend'];
const LEVELS = ['info', 'info', 'info', 'info', 'warn', 'error', 'debug'];
const MESSAGES = [
  'request completed',
  'upstream timeout after retries',
  'cache miss for key',
  'user session refreshed',
  'payment authorized',
  'connection reset by peer',
  'slow query detected',
];
const PROGRAMS = ['sshd', 'cron', 'kernel', 'systemd', 'nginx', 'postfix/smtpd'];

const T0_SECONDS = 1_716_000_000; // May 2024
const pad2 = (n: number) => String(n).padStart(2, '0');

function accessTime(seconds: number): string {
  const d = new Date(seconds * 1000);
  return `${pad2(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} +0000`;
}

/** Access lines in bodies of `perBody` lines, until `bytes` are made; `lines` is their count. */
export function accessBodies(bytes: number, perBody: number): { bodies: Buffer[]; lines: number; rare: number } {
  const rand = prng(1);
  const bodies: Buffer[] = [];
  let made = 0;
  let lines = 0;
  let rare = 0;
  while (made < bytes) {
    const out: string[] = [];
    for (let i = 0; i < perBody; i++, lines++) {
      const id = Math.floor(rand() * 100_000);
      let path = (PATHS[Math.floor(rand() * PATHS.length)] as string)
        .replace('{id}', String(id))
        .replace('{word}', WORDS[id % WORDS.length] as string);
      if (lines % RARE_EVERY === RARE_EVERY - 1) {
        path = `/search?q=${RARE_TERM}`;
        rare++;
      }
      const ip = `${10 + (id % 200)}.${(id >> 3) % 256}.${(id >> 7) % 256}.${id % 251}`;
      out.push(
        `${ip} - ${id % 13 === 0 ? `user${id % 1000}` : '-'} [${accessTime(T0_SECONDS + Math.floor(lines / 50))}] "${METHODS[id % METHODS.length]} ${path} HTTP/1.1" ${STATUSES[Math.floor(rand() * STATUSES.length)]} ${Math.floor(rand() * 50_000)} "${REFERERS[id % REFERERS.length]}" "${AGENTS[Math.floor(rand() * AGENTS.length)]}"`,
      );
    }
    const body = Buffer.from(`${out.join('\n')}\n`);
    made += body.length;
    bodies.push(body);
  }
  return { bodies, lines, rare };
}

/** Syslog (RFC 3164) lines, as `accessBodies`. */
export function syslogBodies(bytes: number, perBody: number): { bodies: Buffer[]; lines: number } {
  const rand = prng(2);
  const bodies: Buffer[] = [];
  let made = 0;
  let lines = 0;
  while (made < bytes) {
    const out: string[] = [];
    for (let i = 0; i < perBody; i++, lines++) {
      const d = new Date((T0_SECONDS + Math.floor(lines / 20)) * 1000);
      const program = PROGRAMS[Math.floor(rand() * PROGRAMS.length)] as string;
      out.push(
        `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} host-${Math.floor(rand() * 40)} ${program}[${1000 + Math.floor(rand() * 30_000)}]: ${MESSAGES[Math.floor(rand() * MESSAGES.length)]} id=${Math.floor(rand() * 1e9)}`,
      );
    }
    const body = Buffer.from(`${out.join('\n')}\n`);
    made += body.length;
    bodies.push(body);
  }
  return { bodies, lines };
}

/** NDJSON application logs with nested objects, as `accessBodies`. */
export function jsonBodies(bytes: number, perBody: number): { bodies: Buffer[]; lines: number } {
  const rand = prng(3);
  const bodies: Buffer[] = [];
  let made = 0;
  let lines = 0;
  while (made < bytes) {
    const out: string[] = [];
    for (let i = 0; i < perBody; i++, lines++) {
      const service = SERVICES[Math.floor(rand() * SERVICES.length)];
      out.push(
        JSON.stringify({
          ts: new Date((T0_SECONDS + lines / 100) * 1000).toISOString(),
          level: LEVELS[Math.floor(rand() * LEVELS.length)],
          service,
          msg: MESSAGES[Math.floor(rand() * MESSAGES.length)],
          http: {
            method: METHODS[Math.floor(rand() * METHODS.length)],
            status: STATUSES[Math.floor(rand() * STATUSES.length)],
            // Always a fraction (odd / 200): a whole number would make greptime_identity infer
            // Int64 for a Float64 column and reject the whole body.
            latency_ms: (2 * Math.floor(rand() * 100_000) + 1) / 200,
          },
          user: { id: Math.floor(rand() * 1e6), region: ['eu', 'us', 'ap'][Math.floor(rand() * 3)] },
          trace_id: Math.floor(rand() * 2 ** 52)
            .toString(16)
            .padStart(16, '0'),
        }),
      );
    }
    const body = Buffer.from(`${out.join('\n')}\n`);
    made += body.length;
    bodies.push(body);
  }
  return { bodies, lines };
}
