/** What the line-protocol parser produces, and what the write path may keep on a parsed series. */
import type { StorageKeyHolder } from '../../insert.js';
import type { EncodedKey } from '../../series-key-blob.js';
import type { TableBindingBase } from '../direct-parts.js';

/** Timestamp unit of a write request (`precision=` query parameter). */
export type Precision = 'ns' | 'us' | 'ms' | 's' | 'm' | 'h';

/** The five line-protocol value types. */
export type FieldKind = 'float' | 'integer' | 'uinteger' | 'string' | 'boolean';

/** A field value: float → number, integer/uinteger → bigint, string → string, boolean → boolean. */
export type FieldValue = number | bigint | string | boolean;

/**
 * One parsed point. Tags and fields are parallel arrays (key i ↔ value i); keys are unique within
 * a point (a repeated key keeps its first position and its last value). The key, kind and tag
 * value arrays are shared between points of the same series, hence read-only.
 */
export interface LinePoint {
  measurement: string;
  tagKeys: readonly string[];
  tagValues: readonly string[];
  fieldKeys: readonly string[];
  fieldKinds: readonly FieldKind[];
  fieldValues: FieldValue[];
  /** The raw integer written on the line, unscaled; null when the line has none. */
  timestamp: bigint | null;
  /** 1-based physical line on which the point starts. */
  line: number;
  /**
   * The parser's record of the point's series, shared by its points and kept across requests
   * while the series is cached: the ingest path keeps the series' shard and storage key on it.
   * Absent on points built by hand.
   */
  series?: LineSeries | undefined;
}

/** What the write path may keep on a parsed series between requests. */
export interface LineSeries extends StorageKeyHolder {
  /**
   * Its tag tuple and shard for `tupleLayout` (shard count, database, table and tag columns;
   * see lineproto/to-inserts.ts): both are rebuilt whenever the layout differs.
   */
  tuple?: Array<string | null> | undefined;
  shard?: number | undefined;
  tupleLayout?: string | undefined;
  /** Its index in the insert being built, valid while `stamp` is that insert's. */
  stamp?: number | undefined;
  stampIndex?: number | undefined;
  /**
   * How the direct path writes the series, for one catalog generation (point-parts.ts): its table,
   * encoded key and shard, kept on the record itself rather than in an object of their own, as
   * reading one more object per point over thousands of series was most of that path's time.
   */
  boundTable?: TableBindingBase | undefined;
  boundKey?: EncodedKey | undefined;
  boundShard?: number | undefined;
}

/** The points of one request body, in body order. */
export interface ParsedBatch {
  points: LinePoint[];
}
