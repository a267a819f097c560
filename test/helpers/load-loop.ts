/**
 * A bounded mixed load for tests that need the server busy (profiling): line-protocol writes and
 * SQL aggregations in parallel loops until stopped or `maxMs` passes, whichever comes first.
 */
export interface LoadLoop {
  /** Stops the loops and resolves with what they did. */
  stop(): Promise<{ writes: number; queries: number; rows: number }>;
}

/** One line-protocol body of `rows` points over `series` series, timestamps in ns. */
export function lineBody(rows: number, series: number, seq: number): string {
  const base = BigInt(Date.now()) * 1_000_000n;
  let body = '';
  for (let i = 0; i < rows; i++) {
    body += `prof_load,host=h${i % series},dc=d${i % 5} v=${(seq * 31 + i) % 1000},n=${i}i ${base + BigInt(i)}\n`;
  }
  return body;
}

export function startLoad(
  url: string,
  opts: { maxMs?: number; writers?: number; rowsPerWrite?: number } = {},
): LoadLoop {
  const end = Date.now() + (opts.maxMs ?? 30_000);
  const rowsPerWrite = opts.rowsPerWrite ?? 500;
  let stopped = false;
  const done = { writes: 0, queries: 0, rows: 0 };
  const running = (): boolean => !stopped && Date.now() < end;
  const writer = async (): Promise<void> => {
    while (running()) {
      const res = await fetch(`${url}/v1/lineproto/write?db=public&precision=ns`, {
        method: 'POST',
        body: lineBody(rowsPerWrite, 200, done.writes),
      });
      await res.arrayBuffer();
      if (res.status === 204) {
        done.writes++;
        done.rows += rowsPerWrite;
      }
    }
  };
  const querier = async (): Promise<void> => {
    while (running()) {
      const res = await fetch(`${url}/v1/sql`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ sql: 'SELECT host, avg(v), count(*) FROM prof_load GROUP BY host' }).toString(),
      });
      await res.arrayBuffer();
      done.queries++;
      // Queries are only there to keep the shards' scan paths warm, not to compete with writes.
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const loops = [...Array.from({ length: opts.writers ?? 2 }, () => writer()), querier()];
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return done;
    },
  };
}
