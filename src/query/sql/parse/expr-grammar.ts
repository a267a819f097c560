/**
 * The expression grammar's tables: sqlparser-rs's binding powers (so `a = 1 OR b = 2 AND c` and
 * `NOT a LIKE 'x'` group the way GreptimeDB groups them), the operators by spelling, and the
 * words with a syntax of their own. Data only; parse-expr.ts reads it.
 */
import type { BinaryOperator } from './ast.js';

export const PREC_OR = 5;
export const PREC_AND = 10;
export const PREC_NOT = 15;
export const PREC_IS = 17;
export const PREC_LIKE = 19;
export const PREC_BETWEEN = 20;
export const PREC_COMPARE = 20;
export const PREC_PIPE = 21;
export const PREC_CARET = 22;
export const PREC_AMPERSAND = 23;
export const PREC_PLUS_MINUS = 30;
export const PREC_MUL_DIV = 40;
export const PREC_DOUBLE_COLON = 50;
/** `list[i]` binds tightest, as in sqlparser. */
export const PREC_SUBSCRIPT = 60;

export const COMPARISON_OPS: Record<string, BinaryOperator> = {
  '=': '=',
  '==': '=',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

export const REGEX_OPS: Record<string, BinaryOperator> = { '~': '~', '~*': '~*', '!~': '!~', '!~*': '!~*' };

/** Units `INTERVAL '1' DAY` may name. */
export const INTERVAL_UNITS = new Set([
  'YEAR',
  'YEARS',
  'MONTH',
  'MONTHS',
  'WEEK',
  'WEEKS',
  'DAY',
  'DAYS',
  'HOUR',
  'HOURS',
  'MINUTE',
  'MINUTES',
  'SECOND',
  'SECONDS',
  'MILLISECOND',
  'MILLISECONDS',
  'MICROSECOND',
  'MICROSECONDS',
  'NANOSECOND',
  'NANOSECONDS',
]);

export const ARITHMETIC_OPS: Record<string, [BinaryOperator, number]> = {
  '+': ['+', PREC_PLUS_MINUS],
  '-': ['-', PREC_PLUS_MINUS],
  '*': ['*', PREC_MUL_DIV],
  '/': ['/', PREC_MUL_DIV],
  '%': ['%', PREC_MUL_DIV],
  '||': ['||', PREC_PLUS_MINUS],
  '|': ['|', PREC_PIPE],
  '^': ['^', PREC_CARET],
  '&': ['&', PREC_AMPERSAND],
};

/** Functions that SQL lets you call without parentheses. */
export const NILADIC_FUNCTIONS = new Set([
  'CURRENT_TIMESTAMP',
  'CURRENT_DATE',
  'CURRENT_TIME',
  'LOCALTIMESTAMP',
  'LOCALTIME',
]);

/** Type names that prefix a string literal to make a typed literal (`TIMESTAMP '...'`). */
export const TYPED_STRING_TYPES = new Set(['TIMESTAMP', 'TIMESTAMPTZ', 'DATE', 'TIME', 'DATETIME']);
