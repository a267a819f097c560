/**
 * The columns of one request's parts (sample-parts.ts, lineproto/point-parts.ts) carved from one
 * buffer. A scraper's request makes a part per metric and shard, twenty for TSBS' ten metrics, and
 * a buffer for each of their columns was most of those paths' allocations: V8 pays for every
 * array buffer (its backing store, its accounting, its sweep) far more than for the bytes in it.
 * The parts are encoded (copied) into their payloads before the request's next step, so nothing
 * outlives the slab's other columns by long.
 */
import type { BlobSlab } from '../series-key-blob.js';
import { allocValues, type PhysicalKind, TYPED_VALUE_BYTES, typedValuesOver, type Vector } from '../types.js';

export class PartSlab implements BlobSlab {
  private readonly buffer: ArrayBuffer;
  private at = 0;

  /** A slab of `bytes`, the sum of `PartSlab.bytes` of every column it gives. */
  constructor(bytes: number) {
    this.buffer = new ArrayBuffer(bytes);
  }

  /** Room for `n` elements of `elementBytes` each, aligned for any typed array after them. */
  static bytes(elementBytes: number, n: number): number {
    return (elementBytes * n + 7) & ~7;
  }

  /** Room for a values column of `kind` (none for strings, which are not typed arrays). */
  static valueBytes(kind: PhysicalKind, n: number): number {
    return kind === 'str' ? 0 : PartSlab.bytes(TYPED_VALUE_BYTES[kind], n);
  }

  private take(bytes: number): number {
    const offset = this.at;
    this.at += (bytes + 7) & ~7;
    if (this.at > this.buffer.byteLength) throw new Error('part slab overrun');
    return offset;
  }

  i64(n: number): BigInt64Array {
    return new BigInt64Array(this.buffer, this.take(n * 8), n);
  }

  f64(n: number): Float64Array {
    return new Float64Array(this.buffer, this.take(n * 8), n);
  }

  i32(n: number): Int32Array {
    return new Int32Array(this.buffer, this.take(n * 4), n);
  }

  u32(n: number): Uint32Array {
    return new Uint32Array(this.buffer, this.take(n * 4), n);
  }

  u8(n: number): Uint8Array {
    return new Uint8Array(this.buffer, this.take(n), n);
  }

  /** A values column of `kind`: from the slab, or for strings an array of their own. */
  values(kind: PhysicalKind, n: number): Vector['values'] {
    if (kind === 'str') return allocValues('str', n);
    return typedValuesOver(kind, this.buffer, this.take(n * TYPED_VALUE_BYTES[kind]), n);
  }
}
