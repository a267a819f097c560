/**
 * The `compression` parameter of the arrow output format, apart from the encoder (arrow.ts) so
 * that routes can read it without loading apache-arrow: its ~150 modules load on the first arrow
 * answer, not at every start-up.
 */

/** The `compression` URL parameter, resolved. */
export type ArrowCompression = 'lz4' | 'zstd' | null;

/** `zstd` / `lz4` in any case; anything else means none. */
export function parseArrowCompression(text: string | null | undefined): ArrowCompression {
  const lower = text?.toLowerCase();
  return lower === 'lz4' || lower === 'zstd' ? lower : null;
}
