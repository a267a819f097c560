/**
 * Route lookup: exact segments, `:name` parameters and a trailing `*`. Small and linear: there are
 * a few dozen routes and most requests hit one of the first few.
 */
import type { Route } from './context.js';

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface CompiledRoute {
  route: Route;
  segments: string[];
  wildcard: boolean;
}

export class RouteTable {
  private readonly compiled: CompiledRoute[] = [];

  constructor(routes: Route[]) {
    for (const route of routes) {
      const wildcard = route.pattern.endsWith('/*');
      const base = wildcard ? route.pattern.slice(0, -2) : route.pattern;
      this.compiled.push({ route, segments: base.split('/').slice(1), wildcard });
    }
  }

  match(method: string, path: string): RouteMatch {
    const parts = path.split('/').slice(1);
    // A trailing slash is a distinct path except at the root.
    const allow: string[] = [];
    for (const c of this.compiled) {
      const params = matchSegments(c, parts);
      if (!params) continue;
      if (c.route.methods.includes(method) || (method === 'HEAD' && c.route.methods.includes('GET'))) {
        return { kind: 'found', route: c.route, params };
      }
      allow.push(...c.route.methods);
    }
    if (allow.length > 0) return { kind: 'method-not-allowed', allow: [...new Set(allow)] };
    return { kind: 'not-found' };
  }
}

function matchSegments(c: CompiledRoute, parts: string[]): Record<string, string> | null {
  if (c.wildcard ? parts.length < c.segments.length : parts.length !== c.segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < c.segments.length; i++) {
    const seg = c.segments[i] as string;
    const part = parts[i] as string;
    if (seg.startsWith(':')) {
      if (part === '') return null;
      try {
        params[seg.slice(1)] = decodeURIComponent(part);
      } catch {
        return null;
      }
    } else if (seg !== part) {
      return null;
    }
  }
  if (c.wildcard) params['*'] = parts.slice(c.segments.length).join('/');
  return params;
}
