/**
 * Decoded remote write → `TableInsert`s (reference ingest §2.3, admin §7.4): one table per metric
 * name in the series' database. Label checks already happened when each series was first seen
 * (series-labels.ts); the grouping into series-form inserts is shared with OpenTSDB
 * (../series-inserts.ts).
 */
import type { TableInsert } from '../../insert.js';
import { seriesInserts, type TableLookup } from '../series-inserts.js';
import type { DecodedWrite } from './write-decode.js';

export { type TableLookup, TIME_COLUMN, VALUE_COLUMN, valueColumnOf } from '../series-inserts.js';
export { DATABASE_LABELS, METRIC_NAME_LABEL, PHYSICAL_TABLE_LABELS } from './series-labels.js';

/** Builds the inserts of a decoded request. `lookup` reads the catalog (existing column names). */
export function toTableInserts(decoded: DecodedWrite, lookup: TableLookup): TableInsert[] {
  return seriesInserts(
    {
      series: decoded.series,
      start: decoded.sampleStart,
      count: decoded.sampleCounts,
      timestamps: decoded.timestamps,
      values: decoded.values,
    },
    lookup,
  ).map((t) => t.insert);
}
