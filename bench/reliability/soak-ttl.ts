/**
 * The soak with a steady data volume (soak-driver.ts, option `ttl`): `mixp` is created with the
 * ttl before the first write and every body is stamped with the wall clock, so once the first ttl
 * has passed the shards retire as much as arrives and the stored rows, live segments and open
 * files level off. The end check can then only count the rows still inside the ttl: those at or
 * after now − ttl + a margin (for the time between the count's clock and the server's), which the
 * shards never drop, against the rows acknowledged with those times.
 */
import { tryTtlMs } from '../../src/shared/ttl.js';
import { ROWS_PER_BODY } from '../mixed/bodies.js';

/** The table line protocol would create for the bodies (SHOW CREATE TABLE), with the ttl added. */
export function mixpTableSql(ttl: string): string {
  return (
    'CREATE TABLE mixp (core STRING NULL, host STRING NULL, v DOUBLE NULL, ' +
    'greptime_timestamp TIMESTAMP(9) NOT NULL, TIME INDEX (greptime_timestamp), PRIMARY KEY (core, host)) ' +
    `WITH (merge_mode = 'last_non_null', ttl = '${ttl}')`
  );
}

/** The ttl in milliseconds; throws unless it is a duration (forever and instant make no window). */
export function soakTtlMs(ttl: string): number {
  const ms = tryTtlMs(ttl);
  if (ms === undefined || ms === null || ms === 0) throw new Error(`soak ttl ${JSON.stringify(ttl)} is not a duration`);
  return ms;
}

/** How far inside the ttl the end check starts: a tenth of it, at least 5 s. */
export function windowMarginMs(ttlMs: number): number {
  return Math.max(5000, Math.floor(ttlMs / 10));
}

/** Body times that follow the wall clock and never repeat (a repeat would overwrite rows). */
export class WallClockTimes {
  private last = 0;

  next(): number {
    this.last = Math.max(this.last + 1, Date.now());
    return this.last;
  }
}

/** The times of the acknowledged bodies, to count the rows acknowledged inside a window. */
export class AckedTimes {
  private readonly times: number[] = [];

  add(ms: number): void {
    this.times.push(ms);
  }

  /** Rows acknowledged with a time at or after `fromMs`. */
  rowsFrom(fromMs: number): number {
    let bodies = 0;
    for (const ms of this.times) if (ms >= fromMs) bodies++;
    return bodies * ROWS_PER_BODY;
  }
}
