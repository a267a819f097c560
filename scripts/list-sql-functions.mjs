// Prints every SQL function name ShoalDB registers, one per line, with its kind.
// Run from the sources through tsx: node --import tsx scripts/list-sql-functions.mjs
import { functionNames, lookupFunction } from '../src/query/sql/functions/registry.ts';

for (const name of functionNames()) {
  const fn = lookupFunction(name);
  console.log(`${name}\t${fn?.kind}\t${fn?.name}`);
}
