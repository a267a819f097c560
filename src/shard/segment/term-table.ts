/**
 * The terms of one term index being built, numbered in the order first seen, found from a token's
 * range in its value without making the token's string: only a new term becomes a string.
 *
 * Why not a Map from token strings: a flush tokenizes every value of a log column, and making each
 * token (a slice, then its lower case) and hashing it for the map, then throwing it away, was most
 * of what indexing a path column cost (~500 ns a row for four tokens). Here an ASCII token is
 * folded and hashed in one pass over its characters, and compared in place with the term it may be.
 * A token with any other character takes the string path (`toLowerCase` folds more than ASCII), and
 * lands on the same hash because both hash the folded term's UTF-16 units.
 */
import { tokenAt } from './tokenizer.js';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const INITIAL_SLOTS = 1024;

function hashOfString(term: string): number {
  let h = FNV_OFFSET ^ term.length;
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), FNV_PRIME);
  return h;
}

export class TermTable {
  /** Term by id. */
  readonly terms: string[] = [];
  private hashes: Int32Array = new Int32Array(INITIAL_SLOTS / 2);
  /** Open addressing, linear probing: a term id, or -1. */
  private slots: Int32Array = new Int32Array(INITIAL_SLOTS).fill(-1);

  /**
   * The id of token `[start, end)` of `text` (ASCII letters lower-cased unless `caseSensitive`); a
   * new term gets the next id, `terms.length - 1` after the call.
   */
  idOf(text: string, start: number, end: number, caseSensitive: boolean): number {
    let h = FNV_OFFSET ^ (end - start);
    for (let i = start; i < end; i++) {
      let u = text.charCodeAt(i);
      if (u >= 128) return this.idOfTerm(tokenAt(text, start, end, caseSensitive));
      if (!caseSensitive && u >= 65 && u <= 90) u += 32;
      h = Math.imul(h ^ u, FNV_PRIME);
    }
    const slots = this.slots;
    const mask = slots.length - 1;
    let slot = h & mask;
    for (;;) {
      const id = slots[slot] as number;
      if (id < 0) break;
      if (this.hashes[id] === h && sameAscii(this.terms[id] as string, text, start, end, caseSensitive)) return id;
      slot = (slot + 1) & mask;
    }
    return this.insert(slot, h, tokenAt(text, start, end, caseSensitive));
  }

  /** The id of `term` (already folded), made when new. */
  private idOfTerm(term: string): number {
    const h = hashOfString(term);
    const slots = this.slots;
    const mask = slots.length - 1;
    let slot = h & mask;
    for (;;) {
      const id = slots[slot] as number;
      if (id < 0) break;
      if (this.hashes[id] === h && this.terms[id] === term) return id;
      slot = (slot + 1) & mask;
    }
    return this.insert(slot, h, term);
  }

  private insert(slot: number, hash: number, term: string): number {
    const id = this.terms.length;
    this.terms.push(term);
    if (id === this.hashes.length) {
      const hashes = new Int32Array(id * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    this.hashes[id] = hash;
    this.slots[slot] = id;
    // At most half full, so probes stay short.
    if (this.terms.length * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    return id;
  }

  private rehash(size: number): void {
    const slots = new Int32Array(size).fill(-1);
    const mask = size - 1;
    for (let id = 0; id < this.terms.length; id++) {
      let slot = (this.hashes[id] as number) & mask;
      while ((slots[slot] as number) >= 0) slot = (slot + 1) & mask;
      slots[slot] = id;
    }
    this.slots = slots;
  }
}

/** Whether `term` is the ASCII range `[start, end)` of `text`, folded unless `caseSensitive`. */
function sameAscii(term: string, text: string, start: number, end: number, caseSensitive: boolean): boolean {
  if (term.length !== end - start) return false;
  for (let i = start, k = 0; i < end; i++, k++) {
    let u = text.charCodeAt(i);
    if (!caseSensitive && u >= 65 && u <= 90) u += 32;
    if (term.charCodeAt(k) !== u) return false;
  }
  return true;
}
