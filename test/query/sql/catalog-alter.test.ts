import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { Catalog } from '../../../src/router/catalog.js';

// The router catalog's ALTER TABLE and TRUNCATE support (src/router/catalog.ts): atomic, persisted.

async function open(t: Test): Promise<{ dir: string; catalog: Catalog }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-catalog-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const catalog = await Catalog.open(dir, 2);
  await catalog.createTable(
    {
      db: 'public',
      name: 't',
      columns: [
        { name: 'i', type: 'Int32', semantic: 'FIELD', nullable: true },
        { name: 'j', type: 'TimestampMillisecond', semantic: 'TIMESTAMP', nullable: false },
      ],
      timeIndex: 'j',
      primaryKey: [],
      options: {},
    },
    false,
  );
  return { dir, catalog };
}

t.test('an altered table keeps column ids, numbers new columns, and survives a reopen', async (t) => {
  const { dir, catalog } = await open(t);
  const before = catalog.getTable('public', 't');
  const altered = await catalog.alterTable('public', 't', {
    name: 'u',
    columns: [
      { id: 2, name: 'j', type: 'TimestampMillisecond', semantic: 'TIMESTAMP', nullable: false },
      { name: 'host', type: 'String', semantic: 'TAG', nullable: true },
    ],
    primaryKey: ['host'],
    options: { ttl: '1d' },
  });
  t.equal(altered.id, before?.id, 'renaming keeps the table id (and so its data)');
  t.same(
    altered.columns.map((c) => [c.id, c.name]),
    [
      [2, 'j'],
      [3, 'host'],
    ],
  );
  t.equal(catalog.getTable('public', 't'), undefined);
  const reopened = await Catalog.open(dir, 2);
  t.same(
    reopened.getTable('public', 'u')?.columns.map((c) => c.name),
    ['j', 'host'],
  );
  t.same(reopened.getTable('public', 'u')?.options, { ttl: '1d' });
});

t.test('renaming onto an existing table is refused', async (t) => {
  const { catalog } = await open(t);
  const t1 = catalog.getTable('public', 't');
  if (!t1) throw new Error('missing table');
  await catalog.createTable({ ...t1, name: 'v', columns: t1.columns }, false);
  await t.rejects(catalog.alterTable('public', 't', { ...t1, name: 'v' }), { code: 4000 });
});

t.test('truncating gives the table a fresh id and reports the old one as dead', async (t) => {
  const { dir, catalog } = await open(t);
  const old = await catalog.truncateTable('public', 't');
  const now = catalog.getTable('public', 't');
  t.not(now?.id, old?.id);
  t.ok(catalog.deadTableIds().includes(old?.id ?? -1), 'shards sweep the old id at start-up');
  t.equal((await Catalog.open(dir, 2)).getTable('public', 't')?.id, now?.id);
  t.equal(await catalog.truncateTable('public', 'nope'), undefined);
});
