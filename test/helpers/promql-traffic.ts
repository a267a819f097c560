/** What the shards have sent the router for PromQL, by kind (raw samples, step values, partials). */
export type Traffic = Record<'raw' | 'step' | 'partial', number>;

/** The server's `shoaldb_promql_shard_samples_returned_total` counters now. */
export async function traffic(url: string): Promise<Traffic> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Traffic = { raw: 0, step: 0, partial: 0 };
  for (const m of text.matchAll(/^shoaldb_promql_shard_samples_returned_total\{kind="(\w+)"\} (\d+)$/gm)) {
    out[m[1] as keyof Traffic] = Number(m[2]);
  }
  return out;
}
