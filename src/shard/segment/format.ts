/**
 * Constants of the segment file format, version 4 (docs/formats/segment.md has the byte layout).
 *
 *   header (16 B) | block 0 | block 1 | ... | index sections | series statistics | footer | trailer (20 B)
 *
 * Version 3 files (blocks stored whole), version 2 files (no series statistics either) and
 * version 1 files (no index sections either) are still read.
 */

/** "SHSG" read as a little-endian u32; first 4 bytes of the header and last 4 of the trailer. */
export const SEGMENT_MAGIC = 0x47534853;
export const SEGMENT_FORMAT_VERSION = 4;
/** The oldest version readers still accept. */
export const SEGMENT_FORMAT_VERSION_MIN = 1;
export const HEADER_BYTES = 16;
export const TRAILER_BYTES = 20;

/** Header flag bits. */
export const SegmentFlags = {
  /** No two rows of one series share a timestamp (written under last_row or last_non_null). */
  Deduplicated: 1,
} as const;

/** How a block's body (versions 1-3) or a chunk of it (version 4) is stored. */
export const BlockCodec = {
  None: 0,
  /** zlib deflate-raw, level 1. */
  DeflateRaw: 1,
  /** Version 4 blocks: a directory, then each chunk stored on its own (None or DeflateRaw). */
  Chunked: 2,
} as const;

/** First byte of a field column chunk. */
export const Validity = {
  AllValid: 0,
  AllNull: 1,
  /** A bitmap of ceil(rows / 8) bytes follows; bit set = value present. */
  Bitmap: 2,
  /**
   * Two bitmaps follow: values present, then rows that never had the column (absent, read as
   * its default). Rows in neither are NULL.
   */
  BitmapWithAbsent: 3,
  /** Every row is absent (chunk ends here). */
  AllAbsent: 4,
} as const;

/** A compressed body is kept only if it saves at least this fraction of the raw bytes. */
export const COMPRESSION_MIN_SAVING = 1 / 8;
/** Upper bound on a footer, a sanity check against a corrupt trailer. */
export const FOOTER_BYTES_MAX = 1 << 30;
/**
 * Estimated size past which one column's term index is left out of a segment (the flush or
 * compaction goes on without it): an index that large would cost more to load than it saves.
 */
export const INDEX_SECTION_BYTES_MAX = 64 * 1024 * 1024;
