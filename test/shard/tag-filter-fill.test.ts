/**
 * A shard's tag filter across an open: every series of its segments and of the replayed WAL is in
 * it and it is marked complete; a table whose segments could not be opened leaves it incomplete,
 * so the router keeps asking that shard (whose scans of the table fail, as they must).
 */
import t from 'tap';
import { ShardState } from '../../src/shard/state.js';
import { fillTagFilter } from '../../src/shard/tag-filter-fill.js';
import { TagFilter } from '../../src/shared/tag-filter.js';
import { openStore, payload, shardConfig, silentLog, tempDir } from './helpers.js';

const KINDS = { 10: 'f64' } as const;
const row = (host: string, ts: bigint) => ({ ts, tags: { 1: host }, fields: { 10: 1 } });

t.test('segments and the WAL fill the filter at open', async (t) => {
  const dir = tempDir(t);
  let store = await openStore(dir, { tagFilter: new TagFilter().buffer });
  await store.write([payload(7, KINDS, [row('flushed', 1n)])]);
  await store.flush();
  await store.write([payload(7, KINDS, [row('logged', 2n)])]);
  await store.close();

  const reopened = new TagFilter();
  store = await openStore(dir, { tagFilter: reopened.buffer });
  t.ok(reopened.complete, 'complete once open');
  t.ok(reopened.mayHold(7, 1, 'flushed'), 'a series of a segment');
  t.ok(reopened.mayHold(7, 1, 'logged'), 'a series replayed from the WAL');
  t.notOk(reopened.mayHold(7, 1, 'never'), 'a value no series holds');
  t.notOk(reopened.mayHold(8, 1, 'flushed'), 'another table');
  await store.close();
});

t.test('a table whose segments could not be opened keeps the filter incomplete', async (t) => {
  const dir = tempDir(t);
  const healthy = new TagFilter();
  await fillTagFilter(new ShardState(shardConfig(dir, { tagFilter: healthy.buffer }), silentLog));
  t.ok(healthy.complete, 'complete with nothing broken');
  const filter = new TagFilter();
  const state = new ShardState(shardConfig(dir, { tagFilter: filter.buffer }), silentLog);
  state.brokenTables.set(7, 'cannot open seg/7/1.seg');
  await fillTagFilter(state);
  t.notOk(filter.complete, "never complete: nothing can list the broken table's series");
});
