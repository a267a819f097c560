/**
 * Prometheus' `labels.Labels.Hash()`: xxHash64 (seed 0) over each label's name, a 0xff byte, its
 * value and another 0xff, in label-name order. limit_ratio places a series by this hash, so using
 * the same one selects the same series Prometheus would.
 */
import xxhash from 'xxhash-wasm';
import type { Labels } from './types.js';

// Compiling the WebAssembly module is asynchronous; it is started once, on first import.
const hasher = xxhash();
const encoder = new TextEncoder();

/** The label sets' hashes, in order. */
export async function labelsHashes(sets: readonly Labels[]): Promise<bigint[]> {
  const { h64Raw } = await hasher;
  let buffer = new Uint8Array(1024);
  return sets.map((labels) => {
    let length = 0;
    for (const { name, value } of labels) {
      // UTF-8 takes at most 3 bytes per UTF-16 unit.
      const need = length + 3 * (name.length + value.length) + 2;
      if (need > buffer.length) {
        const grown = new Uint8Array(Math.max(need, buffer.length * 2));
        grown.set(buffer.subarray(0, length));
        buffer = grown;
      }
      length += encoder.encodeInto(name, buffer.subarray(length)).written;
      buffer[length++] = 0xff;
      length += encoder.encodeInto(value, buffer.subarray(length)).written;
      buffer[length++] = 0xff;
    }
    return h64Raw(buffer.subarray(0, length));
  });
}
