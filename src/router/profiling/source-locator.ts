/**
 * Maps positions in the compiled JavaScript that V8 reports back to the TypeScript they came from,
 * through the `.js.map` files tsc writes next to each output (tsconfig `sourceMap`). Node's own
 * `module.findSourceMap` only knows maps when the process runs with `--enable-source-maps`, so the
 * maps are read here and parsed with node's `SourceMap` class.
 */
import fs from 'node:fs';
import { SourceMap, type SourceMapping } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../../shared/package-paths.js';

/** Most source maps kept parsed; a server loads a few hundred modules, so this holds them all. */
const MAPS_CACHED_MAX = 4096;

/** A source position as shown in profiles: `file` relative to the package root when inside it. */
export interface SourcePosition {
  file: string;
  /** 1-based; 0 when unknown. */
  line: number;
}

export class SourceLocator {
  private readonly maps = new Map<string, { map: SourceMap; dir: string } | null>();

  /**
   * The original position of a V8 call frame position (`url`, 0-based line and column). Frames
   * without a file (`(program)`, natives) keep their url; files without a map keep their own
   * position.
   */
  locate(url: string, lineNumber: number, columnNumber: number): SourcePosition {
    const file = url.startsWith('file://') ? fileURLToPath(url) : url;
    if (!path.isAbsolute(file)) return { file, line: lineNumber >= 0 ? lineNumber + 1 : 0 };
    const entry = this.mapOf(file);
    if (entry !== null && lineNumber >= 0) {
      const found = entry.map.findEntry(lineNumber, Math.max(0, columnNumber)) as Partial<SourceMapping>;
      if (found.originalSource !== undefined && found.originalLine !== undefined) {
        const source = found.originalSource.startsWith('file://')
          ? fileURLToPath(found.originalSource)
          : path.resolve(entry.dir, found.originalSource);
        return { file: shown(source), line: found.originalLine + 1 };
      }
    }
    return { file: shown(file), line: lineNumber + 1 };
  }

  private mapOf(file: string): { map: SourceMap; dir: string } | null {
    const cached = this.maps.get(file);
    if (cached !== undefined) return cached;
    let entry: { map: SourceMap; dir: string } | null = null;
    try {
      const mapFile = `${file}.map`;
      const payload = JSON.parse(fs.readFileSync(mapFile, 'utf8'));
      const dir = path.resolve(path.dirname(mapFile), typeof payload.sourceRoot === 'string' ? payload.sourceRoot : '');
      entry = { map: new SourceMap(payload), dir };
    } catch {
      // No map (a dependency, a native module): positions stay in the generated file.
    }
    if (this.maps.size >= MAPS_CACHED_MAX) this.maps.clear();
    this.maps.set(file, entry);
    return entry;
  }
}

/** Paths inside the package are shown relative to it (`src/shard/store.ts`), others in full. */
function shown(file: string): string {
  const relative = path.relative(PACKAGE_ROOT, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}
