// Prints every SQL function name ShoalDB registers, one per line, with its kind.
// Run after `npm run build`: node scripts/list-sql-functions.mjs
import { functionNames, lookupFunction } from '../dist/query/sql/functions/registry.js';

for (const name of functionNames()) {
  const fn = lookupFunction(name);
  console.log(`${name}\t${fn?.kind}\t${fn?.name}`);
}
