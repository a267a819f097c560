/**
 * The partition function: which shard owns a series. Pure and stable across restarts, because a
 * series' WAL records and segments live in the shard it hashed to; changing this function (or the
 * shard count) on an existing data directory would split a series across shards. The catalog
 * records the shard count for that reason.
 *
 * Append-mode tables are the exception (`spreadsRows`): their rows never merge, so nothing needs
 * a series whole in one shard, and their writes go to the shards in turn (a log table without
 * tags is one series, which put all of a log stream's storage work on one shard). Queries that
 * need whole series read them from every shard (docs/partitioning.md).
 */
import { threadId } from 'node:worker_threads';
import type { TableSchema } from './types.js';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a 32 over the UTF-16 code units of a string, folded into the running hash `h`. */
function fnvString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h;
}

/** Hash of a table name (`db.table`), the starting point of every series hash of that table. */
export function tableHash(db: string, table: string): number {
  return fnvString(fnvString(FNV_OFFSET, db) ^ 0x2e, table);
}

/**
 * The shard of one series: the table hash extended by each non-null tag as name and value.
 * `sortedTagNames` must be sorted, so that the tag set, not the order a client wrote the tags in,
 * decides placement; `tagValues[i]` is the value of `sortedTagNames[i]` (null = tag absent).
 * Hash collisions only affect placement, never correctness: storage keys series by their full
 * tag set.
 */
export function shardOfSeries(
  tableHashValue: number,
  sortedTagNames: readonly string[],
  tagValues: ReadonlyArray<string | null>,
  shards: number,
): number {
  let h = tableHashValue;
  for (let i = 0; i < sortedTagNames.length; i++) {
    const value = tagValues[i];
    if (value === null || value === undefined) continue;
    h = fnvString(h ^ 0x1f, sortedTagNames[i] as string);
    h = fnvString(h ^ 0x1e, value);
  }
  return (h >>> 0) % shards;
}

/** Whether a table's series may have rows in several shards: append-mode tables, whose rows never merge. */
export function spreadsRows(table: Pick<TableSchema, 'options'>): boolean {
  return table.options.append_mode === 'true';
}

/**
 * Where each append-mode table's next batch goes, per table: one counter for all tables would
 * send a table always to the same shard when requests for two tables alternate through one
 * decoding thread. Threads start at different points, so decoders do not move in step.
 */
const spreadTurns = new Map<number, number>();

/**
 * The shard this thread is (-1: the router): a shard that decodes a body keeps an append-mode
 * table's rows itself, so they are written without another hop, and the router's turns among the
 * decoding shards spread them.
 */
let home = -1;

export function setSpreadHome(shardId: number): void {
  home = shardId;
}

/** The shard for the next batch of rows of append-mode table `tableId`: each shard in turn. */
export function nextSpread(tableId: number, shards: number): number {
  if (home >= 0 && home < shards) return home;
  const turn = ((spreadTurns.get(tableId) ?? threadId) + 1) % 1_000_000_007;
  spreadTurns.set(tableId, turn);
  return turn % shards;
}
