/** A few lines of DOM building, instead of a framework the bundle would have to carry. */

type Attr = string | number | boolean | null | undefined | ((event: Event) => void);
type Child = Node | string | number | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: Array<Child | Child[]>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, '');
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

export function append(node: Node, children: Array<Child | Child[]>): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

export function replaceChildren(node: Node, ...children: Array<Child | Child[]>): void {
  while (node.firstChild) node.removeChild(node.firstChild);
  append(node, children);
}

let nextId = 0;
/** An id for tying a label to its control. */
export function uid(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** A labelled control: the label is what screen readers and axe look for. */
export function field(label: string, control: HTMLElement): HTMLElement {
  if (!control.id) control.id = uid('f');
  return el('span', { class: 'field' }, el('label', { for: control.id }, label), control);
}

export function select(
  options: Array<[string, string]>,
  value: string,
  attrs: Record<string, Attr> = {},
): HTMLSelectElement {
  const node = el('select', attrs);
  for (const [v, text] of options) node.appendChild(el('option', { value: v, selected: v === value }, text));
  return node;
}

export function button(text: string, onclick: () => void, attrs: Record<string, Attr> = {}): HTMLButtonElement {
  return el('button', { type: 'button', ...attrs, onclick }, text);
}

export function download(name: string, type: string, content: string): void {
  const href = URL.createObjectURL(new Blob([content], { type }));
  const a = el('a', { href, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 1000);
}

export function errorBox(message: string): HTMLElement {
  return el('p', { class: 'error', role: 'alert' }, message);
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (Math.abs(n) >= 1024 && i < units.length - 1) {
    n /= 1024;
    i += 1;
  }
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

/** `1 row`, `2 rows`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
