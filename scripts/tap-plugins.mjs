// Builds tap's plugin set when it is not the one .taprc asks for (after a fresh `npm install` it is
// tap's default, with the ts-node loader). tap's runner notices this too, but rebuilds only for the
// next run: its own process keeps the old set's loaders for every test file of this one, which
// loaded ts-node beside tsx in each of them (~0.8 s of CPU a file).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TapConfig } from '@tapjs/config';
import { signature } from '@tapjs/test';

const config = await TapConfig.load();
if (config.pluginSignature !== signature.trim()) {
  execFileSync(
    process.execPath,
    [fileURLToPath(import.meta.resolve('tap/package.json')).replace(/package\.json$/, 'dist/esm/run.mjs'), 'build'],
    {
      stdio: 'inherit',
    },
  );
}
