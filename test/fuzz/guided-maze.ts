/**
 * A target with a prize five bytes deep, each byte behind its own branch (guided.test.ts): a
 * random input holds the prefix once in 2^40, an input grown branch by branch finds it quickly.
 */
export class Prize extends Error {}

export function maze(b: Uint8Array): number {
  if (b[0] === 0x7b) {
    if (b[1] === 0x22) {
      if (b[2] === 0x3d) {
        if (b[3] === 0x5c) {
          if (b[4] === 0x0a) throw new Prize('the prize');
          return 4;
        }
        return 3;
      }
      return 2;
    }
    return 1;
  }
  return 0;
}
