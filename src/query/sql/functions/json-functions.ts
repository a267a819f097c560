/**
 * GreptimeDB's JSON functions over `Json` values (canonical JSON text, see src/shared/json-value.ts):
 * `parse_json`, `json_to_string`, `json_get_int|float|bool|string|object`, `json_is_*`,
 * `json_path_exists`, `json_path_match`, `json_path_query`, `json_object_keys`, `json_object`.
 *
 * `json_get_*` take the first node a path selects and convert it the way JSONB does: an int from
 * an integer or a boolean, a float from any number or a boolean, a bool only from a boolean, a
 * string from a string or any other scalar's JSON text; anything else (no match, wrong kind, a bad
 * path) is NULL. A `String` where a `Json` is expected is read as JSON text.
 */
import { DbError, ErrorCode } from '../../../shared/errors.js';
import {
  type JsonNode,
  JsonSyntaxError,
  jsonNodeOf,
  jsonText,
  objectNode,
  parseJson,
} from '../../../shared/json-value.js';
import { type DataType, listTypeOf } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { arrowNameOf, isFloat, isInteger } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { type JsonPath, JsonPathError, matchJsonPath, parseJsonPath, selectJsonPath } from './json-path.js';
import { mapRows, type ScalarFunction } from './types.js';

function noMatch(name: string, argTypes: DataType[]): DbError {
  return planError(
    `No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'. You might need to add explicit type casts.`,
  );
}

const isJsonLike = (t: DataType | undefined): boolean => t === 'Json' || t === 'String' || t === 'Null';

function requireArgs(name: string, argTypes: DataType[], shape: Array<'json' | 'string'>): void {
  const ok =
    argTypes.length === shape.length &&
    shape.every((kind, i) =>
      kind === 'json' ? isJsonLike(argTypes[i]) : argTypes[i] === 'String' || argTypes[i] === 'Null',
    );
  if (!ok) throw noMatch(name, argTypes);
}

function execution(message: string): DbError {
  return new DbError(ErrorCode.EngineExecuteQuery, `Execution error: ${message}`);
}

/** The node of a `Json` argument (canonical text) or of JSON text given as a `String`. */
function nodeOf(value: Value): JsonNode | null {
  try {
    return jsonNodeOf(value as string);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return null;
    throw err;
  }
}

const pathCache = new Map<string, JsonPath | null>();
const PATH_CACHE_ENTRIES_MAX = 256;

/** A parsed path, or null for text that is not one. */
function pathOf(text: string): JsonPath | null {
  if (pathCache.has(text)) return pathCache.get(text) ?? null;
  let path: JsonPath | null;
  try {
    path = parseJsonPath(text);
  } catch (err) {
    if (!(err instanceof JsonPathError)) throw err;
    path = null;
  }
  if (pathCache.size >= PATH_CACHE_ENTRIES_MAX) pathCache.clear();
  pathCache.set(text, path);
  return path;
}

/** The first node `path` selects in `json`, or null. */
function firstMatch(json: Value, path: Value): JsonNode | null {
  const root = nodeOf(json);
  const parsed = pathOf(path as string);
  if (!root || !parsed) return null;
  return selectJsonPath(root, parsed)[0] ?? null;
}

function jsonGet(name: string, returnType: DataType, convert: (node: JsonNode) => Value): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      requireArgs(name, argTypes, ['json', 'string']);
      return { argTypes, returnType };
    },
    evaluate: (args, rowCount) =>
      mapRows(args, rowCount, (json, path) => {
        const node = firstMatch(json, path);
        return node ? convert(node) : null;
      }),
  };
}

const I64_MAX = (1n << 63n) - 1n;

const jsonGetInt = jsonGet('json_get_int', 'Int64', (n) =>
  n.kind === 'int' ? (n.value <= I64_MAX ? n.value : null) : n.kind === 'bool' ? (n.value ? 1n : 0n) : null,
);

const jsonGetFloat = jsonGet('json_get_float', 'Float64', (n) =>
  n.kind === 'int' ? Number(n.value) : n.kind === 'float' ? n.value : n.kind === 'bool' ? Number(n.value) : null,
);

const jsonGetBool = jsonGet('json_get_bool', 'Boolean', (n) => (n.kind === 'bool' ? n.value : null));

const jsonGetString = jsonGet('json_get_string', 'String', (n) => {
  if (n.kind === 'string') return n.value;
  if (n.kind === 'array' || n.kind === 'object' || n.kind === 'null') return null;
  return jsonText(n);
});

const jsonGetObject = jsonGet('json_get_object', 'Json', (n) => (n.kind === 'object' ? jsonText(n) : null));

const parseJsonFunction: ScalarFunction = {
  kind: 'scalar',
  name: 'parse_json',
  bind(argTypes) {
    requireArgs('parse_json', argTypes, ['string']);
    return { argTypes, returnType: 'Json' };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (text) => {
      try {
        return jsonText(parseJson(text as string));
      } catch (err) {
        if (err instanceof JsonSyntaxError) throw execution(`cannot parse '${text as string}': ${err.message}`);
        throw err;
      }
    }),
};

const jsonToString: ScalarFunction = {
  kind: 'scalar',
  name: 'json_to_string',
  bind(argTypes) {
    if (argTypes.length !== 1 || !(argTypes[0] === 'Json' || argTypes[0] === 'Null')) {
      throw noMatch('json_to_string', argTypes);
    }
    return { argTypes, returnType: 'String' };
  },
  // A Json value already is its canonical text.
  evaluate: (args) => args[0] as Value[],
};

function jsonIs(kind: string, test: (n: JsonNode) => boolean): ScalarFunction {
  const name = `json_is_${kind}`;
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      requireArgs(name, argTypes, ['json']);
      return { argTypes, returnType: 'Boolean' };
    },
    evaluate: (args, rowCount) =>
      mapRows(args, rowCount, (json) => {
        const node = nodeOf(json);
        return node ? test(node) : null;
      }),
  };
}

const jsonPathExists: ScalarFunction = {
  kind: 'scalar',
  name: 'json_path_exists',
  bind(argTypes) {
    requireArgs('json_path_exists', argTypes, ['json', 'string']);
    return { argTypes, returnType: 'Boolean' };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (json, path) => {
      const root = nodeOf(json);
      if (!root) return null;
      const parsed = pathOf(path as string);
      if (!parsed) throw execution(`Failed to parse json path '${path as string}'`);
      return selectJsonPath(root, parsed).length > 0;
    }),
};

const jsonPathMatch: ScalarFunction = {
  kind: 'scalar',
  name: 'json_path_match',
  bind(argTypes) {
    requireArgs('json_path_match', argTypes, ['json', 'string']);
    return { argTypes, returnType: 'Boolean' };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (json, path) => {
      const root = nodeOf(json);
      const parsed = pathOf(path as string);
      if (!root || root.kind === 'null') return null;
      if (!parsed) throw execution(`Failed to parse json path '${path as string}'`);
      return matchJsonPath(root, parsed);
    }),
};

/**
 * `json_path_query(json, path)`: every node the path selects, as one JSON array; NULL when none
 * is selected or the document is JSON null. Unlike the other path functions, GreptimeDB reports a
 * path it cannot parse with the parser's own reason.
 */
const jsonPathQuery: ScalarFunction = {
  kind: 'scalar',
  name: 'json_path_query',
  bind(argTypes) {
    requireArgs('json_path_query', argTypes, ['json', 'string']);
    return { argTypes, returnType: 'Json' };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (json, path) => {
      const root = nodeOf(json);
      if (!root || root.kind === 'null') return null;
      let parsed: JsonPath;
      try {
        parsed = parseJsonPath(path as string);
      } catch (err) {
        if (!(err instanceof JsonPathError)) throw err;
        throw execution(`invalid json path '${path as string}': ${err.message}`);
      }
      const items = selectJsonPath(root, parsed);
      return items.length === 0 ? null : jsonText({ kind: 'array', items });
    }),
};

const jsonObjectKeys: ScalarFunction = {
  kind: 'scalar',
  name: 'json_object_keys',
  bind(argTypes) {
    requireArgs('json_object_keys', argTypes, ['json']);
    return { argTypes, returnType: listTypeOf('String') };
  },
  evaluate: (args, rowCount) =>
    mapRows(args, rowCount, (json) => {
      const node = nodeOf(json);
      return node?.kind === 'object' ? node.entries.map(([k]) => k) : null;
    }),
};

/** The JSON node of a SQL value of `type` (a value `json_object` accepts). */
function nodeOfValue(v: Value, type: DataType): JsonNode {
  if (v === null) return { kind: 'null' };
  if (type === 'Json') return jsonNodeOf(v as string);
  if (typeof v === 'boolean') return { kind: 'bool', value: v };
  if (typeof v === 'string') return { kind: 'string', value: v };
  if (typeof v === 'bigint') return { kind: 'int', value: v };
  return isFloat(type) ? { kind: 'float', value: v as number } : { kind: 'int', value: BigInt(v as number) };
}

const JSON_OBJECT_VALUE_TYPES = (t: DataType): boolean =>
  t === 'Null' || t === 'String' || t === 'Boolean' || t === 'Json' || isInteger(t) || isFloat(t);

const jsonObject: ScalarFunction = {
  kind: 'scalar',
  name: 'json_object',
  bind(argTypes) {
    for (let i = 1; i < argTypes.length; i += 2) {
      const t = argTypes[i] as DataType;
      if (!JSON_OBJECT_VALUE_TYPES(t)) {
        throw execution(`json_object does not support values of type ${arrowNameOf(t)}; cast the value to a string`);
      }
    }
    return { argTypes, returnType: 'Json' };
  },
  evaluate(args, rowCount, _ctx, _returnType, argTypes = []) {
    if (args.length % 2 !== 0) {
      throw execution(`json_object expects (key, value) argument pairs, got ${args.length} arguments`);
    }
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      const entries = new Map<string, JsonNode>();
      for (let i = 0; i < args.length; i += 2) {
        const key = (args[i] as Value[])[r] as Value;
        if (key === null) throw execution('json_object does not allow NULL keys');
        const valueType = argTypes[i + 1] ?? 'Null';
        entries.set(String(key), nodeOfValue((args[i + 1] as Value[])[r] as Value, valueType));
      }
      out[r] = jsonText(objectNode(entries));
    }
    return out;
  },
};

/** JSON functions by SQL name. */
export const JSON_FUNCTIONS: Record<string, ScalarFunction> = {
  parse_json: parseJsonFunction,
  json_to_string: jsonToString,
  json_get_int: jsonGetInt,
  json_get_float: jsonGetFloat,
  json_get_bool: jsonGetBool,
  json_get_string: jsonGetString,
  json_get_object: jsonGetObject,
  json_is_null: jsonIs('null', (n) => n.kind === 'null'),
  json_is_bool: jsonIs('bool', (n) => n.kind === 'bool'),
  json_is_int: jsonIs('int', (n) => n.kind === 'int'),
  json_is_float: jsonIs('float', (n) => n.kind === 'int' || n.kind === 'float'),
  json_is_string: jsonIs('string', (n) => n.kind === 'string'),
  json_is_array: jsonIs('array', (n) => n.kind === 'array'),
  json_is_object: jsonIs('object', (n) => n.kind === 'object'),
  json_path_exists: jsonPathExists,
  json_path_match: jsonPathMatch,
  json_path_query: jsonPathQuery,
  json_object_keys: jsonObjectKeys,
  json_object: jsonObject,
};
