/**
 * Decoded remote write → runs of samples per series (reference ingest §2.3, admin §7.4): one
 * table per metric name in the series' database. Label checks already happened when each series
 * was first seen (series-labels.ts); what follows is shared with OpenTSDB: sample-parts.ts
 * writes runs of bound series directly, series-inserts.ts groups the others into inserts.
 */
import type { SeriesRuns } from '../series-inserts.js';
import type { DecodedWrite } from './write-decode.js';

export { type TableLookup, TIME_COLUMN, VALUE_COLUMN, valueColumnOf } from '../series-inserts.js';
export { DATABASE_LABELS, METRIC_NAME_LABEL, PHYSICAL_TABLE_LABELS } from './series-labels.js';

/** The samples of a decoded request as runs, one per `TimeSeries`. */
export function runsOf(decoded: DecodedWrite): SeriesRuns {
  return {
    series: decoded.series,
    start: decoded.sampleStart,
    count: decoded.sampleCounts,
    timestamps: decoded.timestamps,
    values: decoded.values,
  };
}
