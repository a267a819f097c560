import { openStore, payload, scanRows } from './helpers.js';
import fs from 'node:fs';
const dir = fs.mkdtempSync('/tmp/smk-');
const store = await openStore(dir);
await store.write([payload(1, {10: 'f64', 11: 'str'}, [
  { ts: 5n, tags: {2: 'a'}, fields: {10: 1.5, 11: 'x'} },
  { ts: 3n, tags: {2: 'b'}, fields: {10: 2.5} },
  { ts: 4n, tags: {2: 'a'}, fields: {10: 3.5, 11: 'y'} },
])]);
const cols = [{id: 2, kind: 'str' as const, role: 'tag' as const}, {id: 0, kind: 'i64' as const, role: 'time' as const}, {id: 10, kind: 'f64' as const, role: 'field' as const}, {id: 11, kind: 'str' as const, role: 'field' as const}];
console.log(scanRows(store, 1, cols));
await store.flush();
console.log(scanRows(store, 1, cols), store.stats());
await store.write([payload(1, {10: 'f64'}, [{ ts: 4n, tags: {2: 'a'}, fields: {10: 9} }])]);
await store.flush();
await store.compact();
console.log(scanRows(store, 1, cols), store.stats());
await store.close();
const s2 = await openStore(dir);
console.log(scanRows(s2, 1, cols));
await s2.close();
console.log(fs.readFileSync(dir + '/MANIFEST', 'utf8'));
