/** Data type names as CREATE TABLE, ALTER and CAST write them. */
import type { SqlType } from './ast.js';
import type { TokenStream } from './parser-base.js';

/** A data type: `DOUBLE`, `TIMESTAMP(3)`, `INT UNSIGNED`, `VARCHAR(255)`, `DOUBLE PRECISION`. */
export function parseDataType(ts: TokenStream): SqlType {
  const t = ts.peek();
  if (t.kind !== 'word') return ts.expected('a data type name', t);
  ts.next();
  let name = t.value.toUpperCase();
  if (name === 'DOUBLE') ts.consumeKeyword('PRECISION');
  if (name === 'CHARACTER' && ts.consumeKeyword('VARYING')) name = 'VARCHAR';
  const args: number[] = [];
  if (ts.consumeOp('(')) {
    do {
      const n = ts.next();
      if (n.kind !== 'number') ts.expected('literal int', n);
      args.push(Number(n.value));
    } while (ts.consumeOp(','));
    ts.expectOp(')');
  }
  if (
    name === 'TIMESTAMP' &&
    (ts.consumeKeywords('WITH', 'TIME', 'ZONE') || ts.consumeKeywords('WITHOUT', 'TIME', 'ZONE'))
  ) {
    // The zone marker does not change GreptimeDB's storage type.
  }
  const unsigned = ts.consumeKeyword('UNSIGNED');
  return { name, args, unsigned };
}
