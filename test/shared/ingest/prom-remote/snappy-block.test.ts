/**
 * The one-pass snappy block decoder against snappyjs' encoder: every compressible and
 * incompressible input round-trips (long and overlapping copies, long literals), and every
 * truncated or corrupted block is refused with a SnappyError, never decoded into other bytes.
 */
import snappy from 'snappyjs';
import t from 'tap';
import { SnappyError, snappyDecompress } from '../../../../src/shared/ingest/prom-remote/snappy-block.js';
import { prng } from '../../../helpers/prng.js';

function sample(rand: () => number): Buffer {
  const parts: Buffer[] = [];
  const pieces = 1 + Math.floor(rand() * 20);
  for (let i = 0; i < pieces; i++) {
    const kind = rand();
    const length = Math.floor(rand() * (kind < 0.1 ? 70_000 : 300));
    if (kind < 0.3)
      parts.push(Buffer.alloc(length, Math.floor(rand() * 256))); // runs: overlapping copies
    else if (kind < 0.4) {
      // A short period (4 to 12 bytes) repeated: copies that overlap by less than their length.
      const period = Buffer.from(Array.from({ length: 4 + Math.floor(rand() * 9) }, () => Math.floor(rand() * 256)));
      parts.push(Buffer.alloc(length, period));
    } else if (kind < 0.7 && parts.length > 0)
      parts.push(parts[Math.floor(rand() * parts.length)] as Buffer); // repeats
    else parts.push(Buffer.from(Array.from({ length }, () => Math.floor(rand() * 256)))); // literals
  }
  return Buffer.concat(parts);
}

t.test('round-trips what snappyjs compresses', async (t) => {
  const rand = prng(3);
  let failures = 0;
  for (let i = 0; i < 300; i++) {
    const input = sample(rand);
    const out = snappyDecompress(snappy.compress(input), 1 << 30);
    if (!out.equals(input)) failures++;
  }
  t.equal(failures, 0);
  t.same(snappyDecompress(snappy.compress(Buffer.alloc(0)), 10), Buffer.alloc(0));
  // Into a caller's buffer at an odd offset of a larger one (a thread's scratch).
  const input = sample(rand);
  const scratch = Buffer.alloc(input.length + 7, 0xee);
  const out = snappyDecompress(snappy.compress(input), 1 << 30, (n) => scratch.subarray(3, 3 + n));
  t.ok(out.equals(input), 'decoded into the subarray');
  t.equal(scratch[2], 0xee, 'nothing written before it');
  t.equal(scratch[3 + input.length], 0xee, 'nor after it');
});

t.test('truncated and corrupted blocks are refused', async (t) => {
  const rand = prng(5);
  const input = sample(rand);
  const block = snappy.compress(input);
  let accepted = 0;
  for (let cut = 0; cut < block.length; cut += Math.max(1, Math.floor(block.length / 400))) {
    try {
      snappyDecompress(block.subarray(0, cut), 1 << 30);
      accepted++;
    } catch (err) {
      if (!(err instanceof SnappyError)) throw err;
    }
  }
  t.equal(accepted, 0, 'no prefix of a block decodes');

  let other = 0;
  for (let i = 0; i < 500; i++) {
    const bad = Buffer.from(block);
    const at = 1 + Math.floor(rand() * (bad.length - 1));
    bad[at] = (bad[at] as number) ^ (1 << Math.floor(rand() * 8));
    try {
      const out = snappyDecompress(bad, 1 << 30);
      if (out.length !== input.length) other++;
    } catch (err) {
      if (!(err instanceof SnappyError)) other++;
    }
  }
  t.equal(other, 0, 'a flipped bit is refused, or decodes to the declared length');
  let tooLarge = false;
  try {
    snappyDecompress(block, input.length - 1);
  } catch (err) {
    tooLarge = err instanceof SnappyError && err.tooLarge;
  }
  t.ok(tooLarge, 'a block that declares more than the bound is refused as too large');
});

t.test('a copy whose last word runs past it leaves only the bytes that follow it', async (t) => {
  const lit = (s: string) => [(s.length - 1) << 2, ...Buffer.from(s)];
  // A copy with a 1-byte offset: tag ((length - 4) << 2) | 1, then the offset.
  const copy = (length: number, offset: number) => [((length - 4) << 2) | 1, offset];
  const block = (declared: number, ...parts: number[][]) => Uint8Array.from([declared, ...parts.flat()]);
  const text = (b: Uint8Array) => snappyDecompress(b, 100).toString();
  // Room for the whole last word: bytes past the copy are written, then the literal's own.
  t.equal(text(block(16, lit('abcd'), copy(5, 4), lit('wxyzvu1'))), 'abcdabcdawxyzvu1');
  t.equal(text(block(18, lit('abcd'), copy(7, 4), lit('1234567'))), 'abcdabcdabc1234567');
  // Overlapping: a period of 5 under a copy of 11.
  t.equal(text(block(20, lit('hello'), copy(11, 5), lit('worl'))), 'hellohellohellohworl');
  // The copy ends the block, or too near its end: no byte past the declared length is touched.
  const scratch = Buffer.alloc(20, 0xee);
  const out = snappyDecompress(block(13, lit('abcd'), copy(9, 4)), 100, (n) => scratch.subarray(0, n));
  t.equal(out.toString(), 'abcdabcdabcda');
  t.equal(scratch[13], 0xee, 'nothing after the block');
  t.equal(text(block(14, lit('abcd'), copy(9, 4), lit('z'))), 'abcdabcdabcdaz');
  // A block that stops after such a copy is refused, whatever the copy wrote past itself.
  let refused: unknown;
  try {
    text(block(16, lit('abcd'), copy(5, 4)));
  } catch (err) {
    refused = err;
  }
  t.ok(refused instanceof SnappyError, String(refused));
});
