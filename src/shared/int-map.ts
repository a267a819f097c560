/**
 * A map from non-negative 32-bit integers to values: open addressing over a typed key array.
 * Write paths look up a series by its key id once per row; V8's Map took ~20 ns a lookup at ten
 * thousand entries and this ~8 (bench/RESULTS.md), with no entry object per key.
 */
const EMPTY = -1;
const INITIAL_CAPACITY = 16;

export class IntMap<V> {
  private keys = new Int32Array(INITIAL_CAPACITY).fill(EMPTY);
  private values: Array<V | undefined> = new Array<V | undefined>(INITIAL_CAPACITY);
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: number): V | undefined {
    const keys = this.keys;
    const mask = keys.length - 1;
    let i = (Math.imul(key, 0x9e3779b1) >>> 0) & mask;
    for (;;) {
      const k = keys[i] as number;
      if (k === key) return this.values[i];
      if (k === EMPTY) return undefined;
      i = (i + 1) & mask;
    }
  }

  /** `key` must be at least 0. */
  set(key: number, value: V): void {
    if (key < 0 || !Number.isInteger(key) || key > 0x7fffffff) throw new RangeError(`IntMap key ${key}`);
    if ((this.count + 1) * 2 > this.keys.length) this.grow();
    const keys = this.keys;
    const mask = keys.length - 1;
    let i = (Math.imul(key, 0x9e3779b1) >>> 0) & mask;
    for (;;) {
      const k = keys[i] as number;
      if (k === key) {
        this.values[i] = value;
        return;
      }
      if (k === EMPTY) {
        keys[i] = key;
        this.values[i] = value;
        this.count++;
        return;
      }
      i = (i + 1) & mask;
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    this.keys = new Int32Array(oldKeys.length * 2).fill(EMPTY);
    this.values = new Array<V | undefined>(oldKeys.length * 2);
    this.count = 0;
    for (let i = 0; i < oldKeys.length; i++) {
      const k = oldKeys[i] as number;
      if (k !== EMPTY) this.set(k, oldValues[i] as V);
    }
  }
}
