/**
 * `/v1/sql/format` and `/v1/sql/parse` (reference §5): parse SQL without executing it. `sql` comes
 * from the URL query, else from a form body (POST needs the form content type). Neither checks
 * the database or honours `format`. Only an absent `sql` is refused; an empty one parses to no
 * statements (`{"formatted":""}`, `[]`), as in GreptimeDB.
 *
 * Errors differ on purpose: format answers the native body (`{code, error, execution_time_ms}`),
 * parse the short one (`{error}`), both with the status of the code (400 for 1004, 2000, 1001).
 */
import type { Statement } from '../../query/sql/parse/ast.js';
import { parseSql } from '../../query/sql/parse/parser.js';
import { formatSql } from '../../query/sql/parse/printer.js';
import { InvalidArgument } from '../../shared/errors.js';
import type { RequestContext, Route } from '../http/context.js';
import { formOf } from '../http/params.js';

/** `sql` from the URL, else the form; null when absent from both. */
function sqlParam(ctx: RequestContext): string | null {
  const form = formOf(ctx);
  return ctx.query.get('sql') ?? form.get('sql');
}

/** GreptimeDB's variant names where ours, derived from `kind`, would differ. */
const VARIANT_NAMES: Readonly<Record<string, string>> = {
  describe: 'DescribeTable',
  set: 'SetVariables',
};

/** `create_table` → `CreateTable`. */
function variantName(kind: string): string {
  return (
    VARIANT_NAMES[kind] ??
    kind
      .split('_')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('')
  );
}

/**
 * One statement as an externally tagged object, `{"CreateTable": {...}}`: the reference keeps
 * that outer shape and leaves the AST inside to each implementation, so the rest is our own tree.
 */
function statementJson(statement: Statement): string {
  const { kind, ...fields } = statement;
  return JSON.stringify({ [variantName(kind)]: fields }, (_key, value: unknown) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
}

export function sqlToolRoutes(): Route[] {
  return [
    {
      methods: ['GET', 'POST'],
      pattern: '/v1/sql/format',
      errors: 'greptime',
      handler: async (ctx) => {
        const sql = sqlParam(ctx);
        if (sql === null) throw new InvalidArgument('sql parameter is required.');
        return {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ formatted: formatSql(sql) }),
        };
      },
    },
    {
      methods: ['GET', 'POST'],
      pattern: '/v1/sql/parse',
      errors: 'short',
      handler: async (ctx) => {
        const sql = sqlParam(ctx);
        if (sql === null) throw new InvalidArgument('Invalid query: sql parameter is required.');
        const statements = parseSql(sql);
        return {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: `[${statements.map(statementJson).join(',')}]`,
        };
      },
    },
  ];
}
