/**
 * The `/v1/logs` body → a typed `LogQuery` (reference §11). Only the JSON shape is checked here,
 * with the framework's answers: wrong content type 415, bad JSON 400, wrong shape 422 (§1.5).
 * Meaning (time window, table, columns, functions) is checked later and answers GreptimeDB errors.
 */
import { mediaTypeOf } from '../../shared/media-type.js';
import { ClientError } from '../errors/catalogue.js';
import {
  fieldPath,
  type JsonPath,
  optionalField,
  readBool,
  readFloat,
  readInteger,
  readOptionalString,
  readSequence,
  readString,
  readStruct,
  readTuple,
  readUsize,
  readVariant,
  requiredField,
} from './json-shape.js';
import {
  type AggregateCall,
  BINARY_OPERATORS,
  type BinaryOperator,
  type ColumnFilters,
  type ContentFilter,
  type EqualValue,
  type Filters,
  type LogContext,
  type LogExpr,
  type LogQuery,
} from './log-query.js';

/**
 * axum's `Json` extractor accepts `application/json` and any `application/<x>+json`, with or
 * without parameters such as `charset`.
 */
function isJsonContentType(header: string | undefined): boolean {
  const mime = mediaTypeOf(header);
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

/** Checks the content type and JSON syntax, then the shape. */
export function parseLogQueryBody(contentType: string | undefined, body: Buffer): LogQuery {
  if (!isJsonContentType(contentType)) {
    throw new ClientError('UnsupportedMediaType', 'Expected request with `Content-Type: application/json`');
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new ClientError('MalformedJson', `Failed to parse the request body as JSON: ${(err as Error).message}`);
  }
  return readLogQuery(value);
}

/** The shape check of an already parsed body. */
export function readLogQuery(value: unknown): LogQuery {
  const root = readStruct(value, '', 'LogQuery');
  // serde reports the first missing field in declaration order.
  const table = readStruct(requiredField(root, 'table', ''), 'table', 'TableName');
  const timeFilterValue = requiredField(root, 'time_filter', '');
  const limitValue = requiredField(root, 'limit', '');
  const columnsValue = requiredField(root, 'columns', '');
  const filtersValue = requiredField(root, 'filters', '');
  const contextValue = requiredField(root, 'context', '');
  const exprsValue = requiredField(root, 'exprs', '');

  const timeFilter = readStruct(timeFilterValue, 'time_filter', 'TimeFilter');
  const limit = readStruct(limitValue, 'limit', 'Limit');
  const optionalUsize = (key: string): number | null => {
    const v = optionalField(limit, key);
    return v === null ? null : readUsize(v, fieldPath('limit', key));
  };
  return {
    table: {
      catalog: readString(requiredField(table, 'catalog_name', 'table'), 'table.catalog_name'),
      schema: readString(requiredField(table, 'schema_name', 'table'), 'table.schema_name'),
      table: readString(requiredField(table, 'table_name', 'table'), 'table.table_name'),
    },
    timeFilter: {
      start: readOptionalString(optionalField(timeFilter, 'start'), 'time_filter.start'),
      end: readOptionalString(optionalField(timeFilter, 'end'), 'time_filter.end'),
      span: readOptionalString(optionalField(timeFilter, 'span'), 'time_filter.span'),
    },
    limit: { skip: optionalUsize('skip'), fetch: optionalUsize('fetch') },
    columns: readSequence(columnsValue, 'columns', readString),
    filters: readFilters(filtersValue, 'filters'),
    context: readContext(contextValue, 'context'),
    exprs: readSequence(exprsValue, 'exprs', readLogExpr),
  };
}

function readFilters(value: unknown, path: JsonPath): Filters {
  const v = readVariant(value, path, 'Filters', [], ['Single', 'And', 'Or', 'Not']);
  switch (v.tag) {
    case 'Single':
      return { kind: 'Single', filter: readColumnFilters(v.content, v.path) };
    case 'And':
    case 'Or':
      return { kind: v.tag, items: readSequence(v.content, v.path, readFilters) };
    default:
      return { kind: 'Not', item: readFilters(v.content, v.path) };
  }
}

function readColumnFilters(value: unknown, path: JsonPath): ColumnFilters {
  const object = readStruct(value, path, 'ColumnFilters');
  return {
    expr: readLogExpr(requiredField(object, 'expr', path), fieldPath(path, 'expr')),
    filters: readSequence(requiredField(object, 'filters', path), fieldPath(path, 'filters'), readContentFilter),
  };
}

const CONTENT_FILTER_UNITS = ['Exist', 'IsTrue', 'IsFalse'] as const;
const CONTENT_FILTER_OTHERS = [
  'Exact',
  'Prefix',
  'Postfix',
  'Contains',
  'Regex',
  'Between',
  'GreatThan',
  'LessThan',
  'In',
  'Equal',
  'Compound',
] as const;

function readContentFilter(value: unknown, path: JsonPath): ContentFilter {
  const v = readVariant(value, path, 'ContentFilter', CONTENT_FILTER_UNITS, CONTENT_FILTER_OTHERS);
  switch (v.tag) {
    case 'Exist':
    case 'IsTrue':
    case 'IsFalse':
      return { kind: v.tag };
    case 'Exact':
    case 'Prefix':
    case 'Postfix':
    case 'Contains':
    case 'Regex':
      return { kind: v.tag, value: readString(v.content, v.path) };
    case 'Between': {
      const o = readStruct(v.content, v.path, 'ContentFilter::Between');
      const at = (key: string): [unknown, JsonPath] => [requiredField(o, key, v.path), fieldPath(v.path, key)];
      return {
        kind: 'Between',
        start: readString(...at('start')),
        end: readString(...at('end')),
        startInclusive: readBool(...at('start_inclusive')),
        endInclusive: readBool(...at('end_inclusive')),
      };
    }
    case 'GreatThan':
    case 'LessThan': {
      const o = readStruct(v.content, v.path, `ContentFilter::${v.tag}`);
      return {
        kind: v.tag,
        value: readString(requiredField(o, 'value', v.path), fieldPath(v.path, 'value')),
        inclusive: readBool(requiredField(o, 'inclusive', v.path), fieldPath(v.path, 'inclusive')),
      };
    }
    case 'In':
      return { kind: 'In', values: readSequence(v.content, v.path, readString) };
    case 'Equal':
      return { kind: 'Equal', value: readEqualValue(v.content, v.path) };
    default: {
      const [filters, op] = readTuple(v.content, v.path, 2, 'tuple variant ContentFilter::Compound');
      const opVariant = readVariant(op, `${v.path}[1]`, 'ConjunctionOperator', ['And', 'Or'], []);
      return {
        kind: 'Compound',
        filters: readSequence(filters, `${v.path}[0]`, readContentFilter),
        op: opVariant.tag as 'And' | 'Or',
      };
    }
  }
}

function readEqualValue(value: unknown, path: JsonPath): EqualValue {
  const v = readVariant(value, path, 'EqualValue', [], ['String', 'Boolean', 'Int', 'UInt', 'Float']);
  switch (v.tag) {
    case 'String':
      return { kind: 'String', value: readString(v.content, v.path) };
    case 'Boolean':
      return { kind: 'Boolean', value: readBool(v.content, v.path) };
    case 'Int':
      return { kind: 'Int', value: readInteger(v.content, v.path, 'i64') };
    case 'UInt':
      return { kind: 'UInt', value: readInteger(v.content, v.path, 'u64') };
    default:
      return { kind: 'Float', value: readFloat(v.content, v.path) };
  }
}

function readContext(value: unknown, path: JsonPath): LogContext {
  const v = readVariant(value, path, 'Context', ['None'], ['Lines', 'Seconds']);
  if (v.tag === 'None') return { kind: 'None' };
  const [before, after] = readTuple(v.content, v.path, 2, `tuple variant Context::${v.tag}`);
  return {
    kind: v.tag as 'Lines' | 'Seconds',
    before: readUsize(before, `${v.path}[0]`),
    after: readUsize(after, `${v.path}[1]`),
  };
}

const LOG_EXPR_VARIANTS = [
  'NamedIdent',
  'PositionalIdent',
  'Literal',
  'ScalarFunc',
  'AggrFunc',
  'Decompose',
  'BinaryOp',
  'Alias',
  'Filter',
] as const;

function readLogExpr(value: unknown, path: JsonPath): LogExpr {
  const v = readVariant(value, path, 'LogExpr', [], LOG_EXPR_VARIANTS);
  const content = (kind: string): Record<string, unknown> => readStruct(v.content, v.path, `LogExpr::${kind}`);
  const required = (o: Record<string, unknown>, key: string): [unknown, JsonPath] => [
    requiredField(o, key, v.path),
    fieldPath(v.path, key),
  ];
  const alias = (o: Record<string, unknown>): string | null =>
    readOptionalString(optionalField(o, 'alias'), fieldPath(v.path, 'alias'));
  switch (v.tag) {
    case 'NamedIdent':
      return { kind: 'NamedIdent', name: readString(v.content, v.path) };
    case 'PositionalIdent':
      return { kind: 'PositionalIdent', index: readUsize(v.content, v.path) };
    case 'Literal':
      return { kind: 'Literal', value: readString(v.content, v.path) };
    case 'ScalarFunc': {
      const o = content(v.tag);
      return {
        kind: 'ScalarFunc',
        name: readString(...required(o, 'name')),
        args: readSequence(...required(o, 'args'), readLogExpr),
        alias: alias(o),
      };
    }
    case 'AggrFunc': {
      const o = content(v.tag);
      return {
        kind: 'AggrFunc',
        aggregates: readSequence(...required(o, 'expr'), readAggregateCall),
        by: readSequence(...required(o, 'by'), readLogExpr),
      };
    }
    case 'Decompose': {
      const o = content(v.tag);
      return {
        kind: 'Decompose',
        expr: readLogExpr(...required(o, 'expr')),
        schema: readString(...required(o, 'schema')),
        fields: readSequence(...required(o, 'fields'), (f, p) => {
          const [name, type] = readTuple(f, p, 2, 'a tuple');
          return [readString(name, `${p}[0]`), readString(type, `${p}[1]`)] as [string, string];
        }),
      };
    }
    case 'BinaryOp': {
      const o = content(v.tag);
      const [opValue, opPath] = required(o, 'op');
      const op = readVariant(opValue, opPath, 'BinaryOperator', BINARY_OPERATORS, []).tag as BinaryOperator;
      return {
        kind: 'BinaryOp',
        left: readLogExpr(...required(o, 'left')),
        op,
        right: readLogExpr(...required(o, 'right')),
      };
    }
    case 'Alias': {
      const o = content(v.tag);
      return { kind: 'Alias', expr: readLogExpr(...required(o, 'expr')), alias: readString(...required(o, 'alias')) };
    }
    default: {
      const o = content(v.tag);
      return { kind: 'Filter', filter: readColumnFilters(...required(o, 'filter')) };
    }
  }
}

function readAggregateCall(value: unknown, path: JsonPath): AggregateCall {
  const o = readStruct(value, path, 'AggrFunc');
  return {
    name: readString(requiredField(o, 'name', path), fieldPath(path, 'name')),
    args: readSequence(requiredField(o, 'args', path), fieldPath(path, 'args'), readLogExpr),
    alias: readOptionalString(optionalField(o, 'alias'), fieldPath(path, 'alias')),
  };
}
