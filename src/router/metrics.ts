/**
 * The server's own metrics, exposed on /metrics. Worker threads cannot share a prom-client
 * registry, so shard figures are pulled from every shard at scrape time and mirrored here.
 */
import client from 'prom-client';
import { type ShardStats, type ThreadHeap, tableSegmentBytes, threadHeap } from '../shared/messages.js';
import { REJECTION_REASONS, rejectionCounts } from '../shared/rejections.js';
import { VERSION } from '../shared/version.js';
import { promqlShardTraffic, type ShardTrafficKind } from './promql-source.js';
import { ShardHistogramMetric } from './shard-histogram-metric.js';
import { shardTasks } from './shard-pruning.js';
import { sqlShardGroups } from './sql-shard-groups.js';

/** Writes waiting in the router's queue in front of one shard. */
export interface QueueDepth {
  shardId: number;
  writes: number;
  bytes: number;
  /** Write and decode tasks sent to the shard's thread that it has not started (WritesWaiting). */
  tasksWaiting: number;
}

export class ServerMetrics {
  /**
   * Counts a finished query request and observes its duration from the request's start
   * (`RequestContext.startMs`). `/v1/pql` is PromQL as far as the duration goes.
   */
  queryDone(kind: 'sql' | 'pql' | 'promql' | 'remote_read', outcome: 'ok' | 'error', startMs: number): void {
    this.queries.inc({ kind, outcome });
    const language = kind === 'pql' ? 'promql' : kind;
    this.queryDuration.observe({ language, outcome }, (performance.now() - startMs) / 1000);
  }

  /** Reports a write path's series-cache size in `/metrics` (`shoaldb_series_cache_entries`). */
  reportSeriesCache(protocol: string, size: () => number): void {
    this.seriesCaches.set(protocol, size);
  }

  readonly registry = new client.Registry();
  readonly ingestRows: client.Counter<'protocol'>;
  readonly ingestBytes: client.Counter<'protocol'>;
  readonly ingestRequests: client.Counter<'protocol' | 'outcome'>;
  readonly queries: client.Counter<'kind' | 'outcome'>;
  readonly httpRequests: client.Counter<'method' | 'status'>;
  readonly httpDuration: client.Histogram<'method'>;
  readonly queryDuration: client.Histogram<'language' | 'outcome'>;

  private readonly seriesCaches = new Map<string, () => number>();

  constructor(
    shardStats: () => Promise<ShardStats[]>,
    schemaCount: () => number,
    queueDepths: () => QueueDepth[] = () => [],
    /** Database and name of each table by id, for per-table figures. */
    tableNames: () => ReadonlyMap<number, { db: string; table: string }> = () => new Map(),
  ) {
    const registers = [this.registry];
    const seriesCaches = this.seriesCaches;
    // One stats round trip per scrape feeds every shard figure: the first collector to run
    // fetches, the rest reuse the answer.
    let pending: Promise<ShardStats[]> | null = null;
    const fetchOnce = (): Promise<ShardStats[]> => {
      if (!pending) {
        pending = shardStats().finally(() => {
          setImmediate(() => {
            pending = null;
          });
        });
      }
      return pending;
    };
    new client.Gauge({
      name: 'shoaldb_series_cache_entries',
      help: "Series held by each write path's series cache (bounded; follows the active series)",
      labelNames: ['protocol'],
      registers,
      async collect() {
        const sums = new Map<string, number>();
        for (const [protocol, size] of seriesCaches) sums.set(protocol, size());
        // Decoders that run in the shards keep their caches there.
        for (const stats of await fetchOnce()) {
          for (const [protocol, n] of Object.entries(stats.seriesCached ?? {})) {
            sums.set(protocol, (sums.get(protocol) ?? 0) + n);
          }
        }
        for (const [protocol, n] of sums) this.set({ protocol }, n);
      },
    });
    client.collectDefaultMetrics({ register: this.registry });
    new client.Gauge({
      name: 'greptime_app_version',
      help: 'app version',
      labelNames: ['app', 'short_version', 'version'],
      registers,
      collect() {
        this.set({ app: 'shoaldb-standalone', short_version: VERSION, version: VERSION }, 1);
      },
    });
    new client.Gauge({
      name: 'greptime_catalog_schema_count',
      help: 'catalog schema count',
      registers,
      collect() {
        this.set(schemaCount());
      },
    });
    this.ingestRows = new client.Counter({
      name: 'shoaldb_ingest_rows_total',
      help: 'Rows accepted and made durable, by ingest protocol',
      labelNames: ['protocol'],
      registers,
    });
    this.ingestBytes = new client.Counter({
      name: 'shoaldb_ingest_bytes_total',
      help: 'Request body bytes received by ingest protocol (before decompression)',
      labelNames: ['protocol'],
      registers,
    });
    this.ingestRequests = new client.Counter({
      name: 'shoaldb_ingest_requests_total',
      help: 'Ingest requests by protocol and outcome (ok, rejected, failed)',
      labelNames: ['protocol', 'outcome'],
      registers,
    });
    this.queries = new client.Counter({
      name: 'shoaldb_queries_total',
      help: 'Query requests by language and outcome',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.httpRequests = new client.Counter({
      name: 'shoaldb_http_requests_total',
      help: 'HTTP requests answered, by method and status',
      labelNames: ['method', 'status'],
      registers,
    });
    this.httpDuration = new client.Histogram({
      name: 'shoaldb_http_request_duration_seconds',
      help: 'Time from request start to the response being written',
      labelNames: ['method'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers,
    });
    this.registerShardMetrics(fetchOnce, tableNames);
    this.registerQueueDepths(queueDepths);
    this.queryDuration = new client.Histogram({
      name: 'shoaldb_query_duration_seconds',
      help: 'Time to answer a query request, by language (sql, promql, remote_read) and outcome',
      labelNames: ['language', 'outcome'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.registerPromqlTraffic();
    new client.Counter({
      name: 'shoaldb_query_shard_tasks_total',
      help: "Query fragments for shards, by outcome: sent, or left out because the shard's tag filter rules out the tag values the query requires",
      labelNames: ['outcome'],
      registers,
      collect() {
        this.reset();
        this.inc({ outcome: 'sent' }, shardTasks.sent);
        this.inc({ outcome: 'skipped' }, shardTasks.skipped);
      },
    });
    new client.Counter({
      name: 'shoaldb_sql_shard_groups_returned_total',
      help: 'Groups shards returned to the router for SQL aggregates, by the form of their states (packed number columns or objects)',
      labelNames: ['form'],
      registers,
      collect() {
        this.reset();
        this.inc({ form: 'packed' }, sqlShardGroups.packed);
        this.inc({ form: 'objects' }, sqlShardGroups.objects);
      },
    });
  }

  /** What shards returned for PromQL queries, by kind (raw samples, step values, partial states). */
  private registerPromqlTraffic(): void {
    const registers = [this.registry];
    const kinds = Object.keys(promqlShardTraffic) as ShardTrafficKind[];
    new client.Counter({
      name: 'shoaldb_promql_shard_samples_returned_total',
      help: 'Values shards returned to the router for PromQL: raw samples, per-step values or partial aggregates',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        for (const kind of kinds) this.inc({ kind }, promqlShardTraffic[kind].samples);
      },
    });
    new client.Counter({
      name: 'shoaldb_promql_shard_bytes_returned_total',
      help: 'Bytes of the typed arrays shards returned to the router for PromQL, by kind',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        for (const kind of kinds) this.inc({ kind }, promqlShardTraffic[kind].bytes);
      },
    });
  }

  /** The router's write queues in front of each shard (what `ingest.shard_queue_size` bounds). */
  private registerQueueDepths(queueDepths: () => QueueDepth[]): void {
    const registers = [this.registry];
    new client.Gauge({
      name: 'shoaldb_shard_write_queue_writes',
      help: "Write parts waiting in the router for a shard's next group commit",
      labelNames: ['shard'],
      registers,
      collect() {
        this.reset();
        for (const q of queueDepths()) this.set({ shard: String(q.shardId) }, q.writes);
      },
    });
    new client.Gauge({
      name: 'shoaldb_shard_write_queue_bytes',
      help: "Encoded bytes waiting in the router for a shard's next group commit",
      labelNames: ['shard'],
      registers,
      collect() {
        this.reset();
        for (const q of queueDepths()) this.set({ shard: String(q.shardId) }, q.bytes);
      },
    });
    new client.Gauge({
      name: 'shoaldb_shard_write_tasks_waiting',
      help: "Write and decode tasks sent to a shard's thread and not yet started there (they cut its query slices short)",
      labelNames: ['shard'],
      registers,
      collect() {
        this.reset();
        for (const q of queueDepths()) this.set({ shard: String(q.shardId) }, q.tasksWaiting);
      },
    });
  }

  /**
   * One mirrored metric per ShardStats figure, labelled by shard. A single stats round trip per
   * scrape feeds all of them: the first collector to run fetches, the rest reuse the answer.
   */
  private registerShardMetrics(
    fetchOnce: () => Promise<ShardStats[]>,
    tableNames: () => ReadonlyMap<number, { db: string; table: string }>,
  ): void {
    const mirror = (name: string, help: string, type: 'counter' | 'gauge', pick: (s: ShardStats) => number): void => {
      const registers = [this.registry];
      if (type === 'counter') {
        new client.Counter({
          name,
          help,
          labelNames: ['shard'],
          registers,
          async collect() {
            const stats = await fetchOnce();
            this.reset();
            for (const s of stats) this.inc({ shard: String(s.shardId) }, pick(s));
          },
        });
      } else {
        new client.Gauge({
          name,
          help,
          labelNames: ['shard'],
          registers,
          async collect() {
            const stats = await fetchOnce();
            this.reset();
            for (const s of stats) this.set({ shard: String(s.shardId) }, pick(s));
          },
        });
      }
    };
    mirror('shoaldb_shard_rows_written_total', 'Rows applied to the memtable', 'counter', (s) => s.rowsWritten);
    mirror(
      'shoaldb_shard_rows_out_of_order_total',
      'Rows applied older than the row written before them in their series (they cost a sort at the flush)',
      'counter',
      (s) => s.rowsOutOfOrder,
    );
    mirror('shoaldb_wal_bytes_total', 'Bytes appended to the WAL', 'counter', (s) => s.walBytesWritten);
    mirror('shoaldb_wal_fsyncs_total', 'WAL fsyncs (one per group commit)', 'counter', (s) => s.walFsyncs);
    mirror(
      'shoaldb_write_stalls_total',
      'Times a write waited for a flush because the memtables held over half of memtable.reject_size',
      'counter',
      (s) => s.writeStalls,
    );
    mirror('shoaldb_wal_files', 'WAL files on disk', 'gauge', (s) => s.walFiles);
    mirror('shoaldb_flushes_total', 'Memtable flushes to segments', 'counter', (s) => s.flushes);
    mirror('shoaldb_compactions_total', 'Segment compactions', 'counter', (s) => s.compactions);
    mirror(
      'shoaldb_shard_key_refs_refused_total',
      'Write payloads a shard refused for naming series keys by ids it no longer knew (each is sent again in full)',
      'counter',
      (s) => s.keyRefsRefused,
    );
    mirror(
      'shoaldb_segment_blocks_read_total',
      'Segment blocks decoded by scans (one that stops early at a LIMIT decodes only what it reached)',
      'counter',
      (s) => s.segmentBlocksRead,
    );
    mirror(
      'shoaldb_memtable_rows_read_total',
      'Memtable rows gathered by scans (a series answered from its statistics reads none, or only those a late row of another part meets)',
      'counter',
      (s) => s.memtableRowsRead,
    );
    mirror(
      'shoaldb_scan_series_summarised_total',
      "Series parts (one series' rows in one segment or memtable) aggregated from statistics instead of rows",
      'counter',
      (s) => s.seriesSummarised,
    );
    mirror(
      'shoaldb_scan_series_visited_total',
      'Series scans visited: every series of the table, or with tag matchers only the candidates of the series index',
      'counter',
      (s) => s.seriesVisited,
    );
    mirror(
      'shoaldb_index_blocks_skipped_total',
      'Segment blocks scans skipped because a column index showed they cannot match',
      'counter',
      (s) => s.indexBlocksSkipped,
    );
    mirror(
      'shoaldb_index_sections_corrupt_total',
      'Segment index sections and series statistics that failed their checksum (scans read the blocks instead)',
      'counter',
      (s) => s.indexSectionsCorrupt,
    );
    mirror(
      'shoaldb_segments_expired_total',
      "Segments retired whole because every row was past its table's ttl",
      'counter',
      (s) => s.segmentsExpired,
    );
    mirror(
      'shoaldb_rows_expired_total',
      "Rows in segments retired for being past their table's ttl",
      'counter',
      (s) => s.rowsExpired,
    );
    mirror(
      'shoaldb_shard_memory_collections_total',
      'Full garbage collections a shard ran after a flush retired its memtable',
      'counter',
      (s) => s.memoryCollections,
    );
    mirror('shoaldb_memtable_bytes', 'Estimated memtable size', 'gauge', (s) => s.memtableBytes);
    mirror('shoaldb_memtable_rows', 'Rows held in memtables', 'gauge', (s) => s.memtableRows);
    mirror('shoaldb_shard_key_refs', 'Series keys a shard knows by id (ingest.key_refs)', 'gauge', (s) => s.keyRefs);
    mirror('shoaldb_segments', 'Live segment files', 'gauge', (s) => s.segmentCount);
    mirror(
      'shoaldb_page_cache_bytes',
      'Inflated segment blocks held for later scans',
      'gauge',
      (s) => s.pageCache.bytes,
    );
    mirror(
      'shoaldb_page_cache_hits_total',
      'Segment blocks a scan found in the page cache',
      'counter',
      (s) => s.pageCache.hits,
    );
    mirror(
      'shoaldb_page_cache_misses_total',
      'Segment blocks a scan read and inflated',
      'counter',
      (s) => s.pageCache.misses,
    );
    mirror('shoaldb_segment_bytes', 'Bytes in live segment files', 'gauge', (s) => s.segmentBytes);
    mirror('shoaldb_wal_recovery_cut_bytes', 'WAL bytes cut at the last start-up', 'gauge', (s) => s.recovery.cutBytes);
    mirror('shoaldb_wal_recovery_cuts', 'WAL files cut at the last start-up', 'gauge', (s) => s.recovery.cuts.length);
    mirror(
      'shoaldb_recovery_segments_quarantined',
      'Damaged live segments moved to quarantine/ at the last start-up',
      'gauge',
      (s) => s.recovery.segmentsQuarantined,
    );
    mirror(
      'shoaldb_recovery_manifest_rebuilt',
      '1 when the MANIFEST was damaged at the last start-up and rebuilt from the segment files',
      'gauge',
      (s) => (s.recovery.manifestRebuilt ? 1 : 0),
    );
    mirror(
      'shoaldb_shard_queries_cancelled_total',
      'Queries stopped in the shard by cancellation or timeout',
      'counter',
      (s) => s.queriesCancelled,
    );
    new client.Gauge({
      name: 'shoaldb_table_segment_bytes',
      help: 'Bytes of live segment files per table, over all shards (its rows on disk; WAL aside)',
      labelNames: ['db', 'table'],
      registers: [this.registry],
      async collect() {
        const stats = await fetchOnce();
        const names = tableNames();
        const sums = tableSegmentBytes(stats);
        this.reset();
        for (const [id, bytes] of sums) {
          const name = names.get(id);
          // Segments of a dropped table stay until the shard deletes them: not a table any more.
          if (name !== undefined) this.set(name, bytes);
        }
      },
    });
    new client.Gauge({
      name: 'shoaldb_thread_heap_bytes',
      help: "Each thread's V8 heap: used (objects not yet collected), total (reserved), external (buffers its objects hold)",
      labelNames: ['thread', 'kind'],
      registers: [this.registry],
      async collect() {
        const stats = await fetchOnce();
        this.reset();
        const threads: [string, ThreadHeap][] = [['router', threadHeap()]];
        for (const s of stats) threads.push([`shard-${s.shardId}`, s.heap]);
        for (const [thread, heap] of threads) {
          for (const kind of ['used', 'total', 'external'] as const) this.set({ thread, kind }, heap[kind]);
        }
      },
    });
    mirror('shoaldb_shard_ready', '1 once the shard has recovered', 'gauge', (s) => (s.ready ? 1 : 0));

    const timings = (pick: keyof ShardStats['timings']) => async () =>
      (await fetchOnce()).map((s) => ({ shardId: s.shardId, snapshot: s.timings[pick] }));
    new ShardHistogramMetric(
      'shoaldb_wal_fsync_duration_seconds',
      'Time of each WAL fsync',
      timings('walFsync'),
    ).register(this.registry);
    new ShardHistogramMetric(
      'shoaldb_flush_duration_seconds',
      'Time to flush one memtable to segments',
      timings('flush'),
    ).register(this.registry);
    new ShardHistogramMetric(
      'shoaldb_compaction_duration_seconds',
      "Time to compact one table's segments",
      timings('compaction'),
    ).register(this.registry);

    // Router refusals counted here, shard refusals (memtable, shard-side query bounds) in their stats.
    new client.Counter({
      name: 'shoaldb_requests_rejected_total',
      help: 'Requests (or parts of them) refused because a limit was crossed, by reason',
      labelNames: ['reason'],
      registers: [this.registry],
      async collect() {
        const stats = await fetchOnce();
        const totals = new Map<string, number>();
        for (const counts of [rejectionCounts(), ...stats.map((s) => s.rejections)]) {
          for (const [reason, n] of Object.entries(counts)) totals.set(reason, (totals.get(reason) ?? 0) + (n ?? 0));
        }
        this.reset();
        for (const reason of REJECTION_REASONS) this.inc({ reason }, totals.get(reason) ?? 0);
      },
    });
  }
}
