/**
 * The router's catalog generation, in memory the shard threads read: a shard that decodes a body
 * writes the rows it owns itself only while the router's catalog, on disk, is still at the
 * generation the body was planned against (src/shard/decode-task.ts).
 */
export class CatalogGeneration {
  private readonly word: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4)) {
    this.word = new Int32Array(buffer);
  }

  publish(generation: number): void {
    Atomics.store(this.word, 0, generation);
  }

  current(): number {
    return Atomics.load(this.word, 0);
  }
}
