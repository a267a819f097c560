/**
 * Go's `container/heap` and the small-input path of `sort.Sort`, reproduced so that results whose
 * order Prometheus leaves to these algorithms (topk/bottomk output, `sort()` ties) come out in
 * the same order. `less` is the heap's Less; the heap array is modified in place.
 */

export type Less<T> = (a: T, b: T) => boolean;

function swap<T>(items: T[], i: number, j: number): void {
  const t = items[i] as T;
  items[i] = items[j] as T;
  items[j] = t;
}

function up<T>(items: T[], start: number, less: Less<T>): void {
  let j = start;
  while (true) {
    const i = Math.trunc((j - 1) / 2);
    if (i === j || !less(items[j] as T, items[i] as T)) break;
    swap(items, i, j);
    j = i;
  }
}

function down<T>(items: T[], start: number, n: number, less: Less<T>): boolean {
  let i = start;
  while (true) {
    const left = 2 * i + 1;
    if (left >= n) break;
    let j = left;
    const right = left + 1;
    if (right < n && less(items[right] as T, items[left] as T)) j = right;
    if (!less(items[j] as T, items[i] as T)) break;
    swap(items, i, j);
    i = j;
  }
  return i > start;
}

/** `heap.Push`. */
export function heapPush<T>(items: T[], item: T, less: Less<T>): void {
  items.push(item);
  up(items, items.length - 1, less);
}

/** `heap.Fix`: restores the heap after `items[index]` changed. */
export function heapFix<T>(items: T[], index: number, less: Less<T>): void {
  if (!down(items, index, items.length, less)) up(items, index, less);
}

/**
 * `sort.Sort(sort.Reverse(x))` where x orders by `less`. Go uses insertion sort (stable) up to
 * 12 elements; beyond that its pdqsort gives no tie guarantee, and a stable sort stands in.
 */
export function goSortReverse<T>(items: T[], less: Less<T>): void {
  const reversed: Less<T> = (a, b) => less(b, a);
  if (items.length <= 12) {
    for (let i = 1; i < items.length; i++) {
      for (let j = i; j > 0 && reversed(items[j] as T, items[j - 1] as T); j--) swap(items, j, j - 1);
    }
    return;
  }
  items.sort((a, b) => (reversed(a, b) ? -1 : reversed(b, a) ? 1 : 0));
}
