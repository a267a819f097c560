/** Operators of the plan's `arithmetic` nodes (`||` concatenates strings). */
export type ArithmeticOperator = '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '||';
/** Operators of the plan's `compare` nodes. */
export type ComparisonOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';
