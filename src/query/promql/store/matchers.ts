/**
 * Label matchers as predicates over one label's value. An absent label is the empty string, and
 * regexes are anchored RE2 patterns (`^(?s:re)$`), as Prometheus matches them. Used by the router
 * (matchers on labels a table lacks, `__name__` against table names) and in the shards (tags).
 */
import { InvalidArgument } from '../../../shared/errors.js';
import { type AnchoredRegex, compileAnchoredRegex, GoRegexError } from '../regex.js';
import type { MatchOp } from '../types.js';

export type LabelTest = (value: string) => boolean;

/** Compiles `op value`; an invalid regex is an InvalidArgument naming the matcher. */
export function compileLabelTest(name: string, op: MatchOp, value: string): LabelTest {
  switch (op) {
    case '=':
      return (v) => v === value;
    case '!=':
      return (v) => v !== value;
    case '=~':
    case '!~': {
      let re: AnchoredRegex;
      try {
        re = compileAnchoredRegex(value);
      } catch (err) {
        const detail = err instanceof GoRegexError ? err.message : String(err);
        throw new InvalidArgument(
          `invalid regular expression in matcher ${name}${op}${JSON.stringify(value)}: ${detail}`,
        );
      }
      return op === '=~' ? (v) => re.test(v) : (v) => !re.test(v);
    }
    default:
      throw new InvalidArgument(`unknown matcher operator ${String(op)}`);
  }
}
