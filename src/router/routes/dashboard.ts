/**
 * The web dashboard (reference admin §2, issue 17): the static assets `npm run build` bundles into
 * `dist/dashboard`, read once at start-up with the gzip and brotli forms the build wrote beside
 * them (`.gz`, `.br`), so a request costs a map lookup. Like GreptimeDB, the assets carry no authentication (the dashboard's
 * own calls to `/v1` do); unknown paths under `/dashboard/` answer `index.html`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { PACKAGE_ROOT } from '../../shared/package-paths.js';
import { type HttpResponse, type RequestContext, type Route, text } from '../http/context.js';

/** One file of the bundle, ready to answer. */
export interface DashboardAsset {
  body: Buffer;
  gzip: Buffer | null;
  br: Buffer | null;
  contentType: string;
  etag: string;
  cacheControl: string;
}

/** Relative path under `dist/dashboard` → asset. */
export type DashboardAssets = Map<string, DashboardAsset>;

/** Where `npm run build` puts the bundle: `dist/dashboard`, beside the compiled router. */
export const DASHBOARD_DIR = path.join(PACKAGE_ROOT, 'dist', 'dashboard');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Formats that are already compressed gain nothing from another pass. */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.map', '.svg', '.txt']);

/** esbuild names assets `name-HASH.ext`: such a name never changes content, so it may be cached for good. */
const HASHED = /-[A-Z0-9]{8}\.[a-z0-9]+$/;

function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listFiles(path.join(dir, entry.name), rel));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

/** A compressed form written by the build, else made now at a level cheap enough for start-up. */
function compressed(file: string, body: Buffer, kind: 'gzip' | 'br'): Buffer {
  const prebuilt = `${file}.${kind === 'gzip' ? 'gz' : 'br'}`;
  if (fs.existsSync(prebuilt)) return fs.readFileSync(prebuilt);
  return kind === 'gzip'
    ? zlib.gzipSync(body, { level: 6 })
    : zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
}

function assetOf(rel: string, file: string): DashboardAsset {
  const body = fs.readFileSync(file);
  const ext = path.extname(rel).toLowerCase();
  const compress = COMPRESSIBLE.has(ext) && body.length > 256;
  return {
    body,
    gzip: compress ? compressed(file, body, 'gzip') : null,
    br: compress ? compressed(file, body, 'br') : null,
    contentType: TYPES[ext] ?? 'application/octet-stream',
    etag: `"${createHash('sha1').update(body).digest('base64url').slice(0, 20)}"`,
    // index.html names the hashed bundle, so it must be revalidated for a new build to be seen.
    cacheControl: HASHED.test(rel) ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
}

/** The bundle in `dir`, or null when it was not built (the server still starts). */
export function loadDashboardAssets(dir = DASHBOARD_DIR): DashboardAssets | null {
  if (!fs.existsSync(path.join(dir, 'index.html'))) return null;
  const assets: DashboardAssets = new Map();
  for (const rel of listFiles(dir)) {
    // The compressed forms are served for their original, never by their own name.
    if (rel.endsWith('.gz') || rel.endsWith('.br')) continue;
    assets.set(rel, assetOf(rel, path.join(dir, rel)));
  }
  return assets;
}

/** The encoding to answer in, from `Accept-Encoding` (q-values of 0 refuse). */
function pickEncoding(accept: string, asset: DashboardAsset): 'br' | 'gzip' | null {
  const offered = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    offered.set(name ?? '', q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const accepts = (name: string): boolean => (offered.get(name) ?? offered.get('*') ?? 0) > 0;
  if (asset.br && accepts('br')) return 'br';
  if (asset.gzip && accepts('gzip')) return 'gzip';
  return null;
}

function answer(ctx: RequestContext, asset: DashboardAsset): HttpResponse {
  const headers: Record<string, string> = {
    'content-type': asset.contentType,
    'cache-control': asset.cacheControl,
    etag: asset.etag,
    vary: 'accept-encoding',
    'x-content-type-options': 'nosniff',
  };
  if (ctx.headers.get('if-none-match') === asset.etag) return { status: 304, headers };
  const encoding = pickEncoding(ctx.headers.get('accept-encoding') ?? '', asset);
  if (encoding === null) return { status: 200, headers, body: asset.body };
  headers['content-encoding'] = encoding;
  return { status: 200, headers, body: (encoding === 'br' ? asset.br : asset.gzip) as Buffer };
}

/**
 * index.html for a deeper unknown path (`/dashboard/a/b`): its relative asset and API URLs would
 * resolve one level too deep, so a `<base>` points them back at `/dashboard/` (relative, so a
 * path prefix added by a reverse proxy still holds).
 */
function deepIndex(index: DashboardAsset, depth: number): DashboardAsset {
  const html = index.body.toString('utf8').replace('<head>', `<head><base href="${'../'.repeat(depth)}">`);
  return { ...index, body: Buffer.from(html), gzip: null, br: null, etag: `${index.etag.slice(0, -1)}-${depth}"` };
}

/**
 * A path that climbs out of `/dashboard/` (`..`, `.`, their encodings, an encoded slash or NUL):
 * refused like a path no listener serves, so that it never looks like it reached something.
 */
function isTraversal(rel: string): boolean {
  return rel.split('/').some((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return true;
    }
    return decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded);
  });
}

export function dashboardRoutes(assets: DashboardAssets | null): Route[] {
  const serve = async (ctx: RequestContext): Promise<HttpResponse> => {
    if (assets === null) {
      return text(404, 'dashboard not built: run "npm run build" to bundle it into dist/dashboard\n');
    }
    const rel = ctx.params['*'] ?? '';
    if (isTraversal(rel)) return { status: 404 };
    const asset = assets.get(rel === '' ? 'index.html' : rel);
    if (asset) return answer(ctx, asset);
    const index = assets.get('index.html') as DashboardAsset;
    const depth = rel.split('/').length - 1;
    return answer(ctx, depth > 0 ? deepIndex(index, depth) : index);
  };
  return [
    {
      methods: ['GET', 'POST'],
      pattern: '/dashboard',
      errors: 'text',
      // Relative, unlike GreptimeDB's `/dashboard/`, so that a proxy's path prefix survives.
      handler: async (ctx) => ({
        status: 308,
        headers: { location: `dashboard/${ctx.rawQuery === '' ? '' : `?${ctx.rawQuery}`}` },
      }),
    },
    { methods: ['GET', 'POST'], pattern: '/dashboard/*', errors: 'text', handler: serve },
  ];
}
