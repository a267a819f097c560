/**
 * Where the package's files are, whichever way this code runs: compiled and bundled into
 * `dist/main.js` or `dist/shard/worker.js`, compiled per module under `dist/`, or as TypeScript
 * under `src/` through a loader. A module's own URL cannot say it once it is bundled (every module
 * then has its bundle's URL), so the root is the nearest directory above with our package.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'shoaldb';

function findPackageRoot(start: string): string {
  for (let dir = start; ; ) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === PACKAGE_NAME) return dir;
    } catch {
      // no package.json here, or not ours: keep climbing
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`${PACKAGE_NAME}'s package.json not found above ${start}`);
    dir = parent;
  }
}

const HERE = fileURLToPath(import.meta.url);

/** The directory holding package.json, `src/` and `dist/`. */
export const PACKAGE_ROOT = findPackageRoot(path.dirname(HERE));

/** Whether this code runs from its TypeScript sources (a loader such as tsx), not from `dist/`. */
export const FROM_SOURCES = HERE.endsWith('.ts');
