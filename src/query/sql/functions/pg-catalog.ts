/**
 * PostgreSQL catalog helpers that GreptimeDB registers for PostgreSQL clients (psql, DBeaver,
 * Grafana's introspection queries), from the datafusion-pg-catalog crate. They answer as that
 * crate does, which is a fixed answer for most: every table visible, every privilege granted,
 * every owner `postgres`, no shared-object comments. `session_user()` is bound in the binder (it
 * needs the session); `format_type` is the only one with real work.
 */
import type { DataType } from '../../../shared/types.js';
import { isInteger } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { signatureError } from './typed.js';
import type { ScalarFunction } from './types.js';

function integerOrNull(t: DataType | undefined): boolean {
  return t === 'Null' || (t !== undefined && isInteger(t));
}

function textOrNull(t: DataType | undefined): boolean {
  return t === 'Null' || t === 'String';
}

/**
 * A function whose answer does not depend on its arguments, NULL ones included (the crate fills
 * every row without looking at the input). `params` checks each argument's type.
 */
function fixedAnswer(
  name: string,
  params: Array<Array<(t: DataType | undefined) => boolean>>,
  castTo: (argTypes: DataType[]) => DataType[],
  returnType: DataType,
  answer: Value,
): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      const fits = params.some((p) => p.length === argTypes.length && p.every((ok, i) => ok(argTypes[i])));
      if (!fits) throw signatureError(name, argTypes);
      return { argTypes: castTo(argTypes), returnType };
    },
    evaluate: (_args, rowCount) => new Array<Value>(rowCount).fill(answer),
  };
}

const oidArgument = [[integerOrNull]];
const asInt32 = (argTypes: DataType[]): DataType[] => argTypes.map(() => 'Int32');

/** `has_*_privilege([user,] object, privilege)`: text arguments, always true. */
function hasPrivilege(name: string): ScalarFunction {
  return fixedAnswer(
    name,
    [
      [textOrNull, textOrNull, textOrNull],
      [textOrNull, textOrNull],
    ],
    (argTypes) => argTypes.map(() => 'String'),
    'Boolean',
    true,
  );
}

/** `pg_encoding_to_char(encoding)`: only PostgreSQL's UTF8 (6) has a name; others are NULL. */
const pgEncodingToChar: ScalarFunction = {
  kind: 'scalar',
  name: 'pg_encoding_to_char',
  bind(argTypes) {
    if (argTypes.length !== 1 || !integerOrNull(argTypes[0])) throw signatureError('pg_encoding_to_char', argTypes);
    return { argTypes: ['Int32'], returnType: 'String' };
  },
  evaluate: (args, rowCount) => (args[0] as Value[]).slice(0, rowCount).map((v) => (v === 6 ? 'UTF-8' : null)),
};

/** Type names by PostgreSQL type oid, for the types without a modifier. */
const PLAIN_TYPES: Record<number, string> = {
  16: 'boolean',
  17: 'bytea',
  18: '"char"',
  19: 'name',
  20: 'bigint',
  21: 'smallint',
  23: 'integer',
  24: 'regproc',
  25: 'text',
  26: 'oid',
  27: 'tid',
  28: 'xid',
  29: 'cid',
  114: 'json',
  3802: 'jsonb',
  700: 'real',
  701: 'double precision',
  1082: 'date',
  1186: 'interval',
  2950: 'uuid',
};

/** Array type oid → its element type oid (the crate's short list). */
const ARRAY_ELEMENTS: Record<number, number> = {
  1000: 16,
  1001: 17,
  1005: 21,
  1007: 23,
  1016: 20,
  1009: 25,
  1014: 1042,
  1015: 1043,
  1021: 700,
  1022: 701,
  1231: 1700,
  1182: 1082,
  1183: 1083,
  1115: 1114,
  1185: 1184,
  199: 114,
  3807: 3802,
  2951: 2950,
};

/** A time type's name, with its fractional-second precision when the modifier gives one. */
function timeType(base: string, zone: string, typemod: number): string {
  return typemod >= 0 ? `${base}(${typemod}) ${zone}` : `${base} ${zone}`;
}

/** PostgreSQL's display name of a type oid with a type modifier (-1: none). */
function formatType(oid: number, typemod: number): string {
  const plain = PLAIN_TYPES[oid];
  if (plain !== undefined) return plain;
  switch (oid) {
    case 1042:
      return typemod > 4 ? `character(${typemod - 4})` : 'character';
    case 1043:
      return typemod > 4 ? `character varying(${typemod - 4})` : 'character varying';
    case 1700: {
      if (typemod < 4) return 'numeric';
      const precision = ((typemod - 4) >> 16) & 0xffff;
      const scale = (typemod - 4) & 0xffff;
      return scale > 0 ? `numeric(${precision},${scale})` : `numeric(${precision})`;
    }
    case 1083:
      return timeType('time', 'without time zone', typemod);
    case 1114:
      return timeType('timestamp', 'without time zone', typemod);
    case 1184:
      return timeType('timestamp', 'with time zone', typemod);
    case 1266:
      return timeType('time', 'with time zone', typemod);
    case 1560:
      return typemod > 0 ? `bit(${typemod})` : 'bit';
    case 1562:
      return typemod > 0 ? `bit varying(${typemod})` : 'bit varying';
  }
  const element = ARRAY_ELEMENTS[oid];
  return element === undefined ? `oid(${oid})` : `${formatType(element, -1)}[]`;
}

/** `format_type(type_oid, typemod)`: NULL for a NULL oid; a NULL modifier reads as -1. */
const formatTypeFunction: ScalarFunction = {
  kind: 'scalar',
  name: 'format_type',
  bind(argTypes) {
    if (argTypes.length !== 2 || !integerOrNull(argTypes[0]) || !integerOrNull(argTypes[1]))
      throw signatureError('format_type', argTypes);
    return { argTypes: ['Int32', 'Int32'], returnType: 'String' };
  },
  evaluate(args, rowCount) {
    const [oids, typemods] = args as [Value[], Value[]];
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      const oid = oids[r];
      const typemod = typemods[r];
      out[r] =
        oid === null || oid === undefined
          ? null
          : formatType(Number(oid), typemod === null || typemod === undefined ? -1 : Number(typemod));
    }
    return out;
  },
};

/** Parsed comment lists, by their JSON text: the same literal arrives with every batch. */
let lastComments: { text: string; byId: Map<number, string> } | null = null;

function commentsOf(text: string): Map<number, string> {
  if (lastComments?.text !== text) {
    lastComments = { text, byId: new Map(JSON.parse(text) as Array<[number, string]>) };
  }
  return lastComments.byId;
}

/**
 * `obj_description(oid, catalog, comments)` as the binder writes it (binder.ts,
 * `bindObjDescription`): the comment of table `oid` when the catalog is `pg_class`, else NULL.
 */
const objDescription: ScalarFunction = {
  kind: 'scalar',
  name: 'obj_description',
  bind(argTypes) {
    if (argTypes.length !== 3) throw signatureError('obj_description', argTypes);
    return { argTypes: ['Int64', 'String', 'String'], returnType: 'String' };
  },
  evaluate(args, rowCount) {
    const [oids, catalogs, comments] = args as [Value[], Value[], Value[]];
    const out = new Array<Value>(rowCount).fill(null);
    if (rowCount === 0) return out;
    const byId = commentsOf(comments[0] as string);
    for (let r = 0; r < rowCount; r++) {
      const oid = oids[r];
      if (oid === null || oid === undefined || catalogs[r] !== 'pg_class') continue;
      out[r] = byId.get(Number(oid)) ?? null;
    }
    return out;
  },
};

/** The PostgreSQL catalog helpers by SQL name. */
export const PG_CATALOG_FUNCTIONS: Record<string, ScalarFunction> = {
  pg_table_is_visible: fixedAnswer('pg_table_is_visible', oidArgument, asInt32, 'Boolean', true),
  pg_get_userbyid: fixedAnswer('pg_get_userbyid', oidArgument, asInt32, 'String', 'postgres'),
  has_table_privilege: hasPrivilege('has_table_privilege'),
  has_schema_privilege: hasPrivilege('has_schema_privilege'),
  has_database_privilege: hasPrivilege('has_database_privilege'),
  has_any_column_privilege: hasPrivilege('has_any_column_privilege'),
  format_type: formatTypeFunction,
  pg_encoding_to_char: pgEncodingToChar,
  obj_description: objDescription,
  // ShoalDB keeps no column comments (CREATE TABLE reads and drops them), so there is none to find.
  col_description: fixedAnswer(
    'col_description',
    [[integerOrNull, integerOrNull]],
    () => ['Int64', 'Int64'],
    'String',
    null,
  ),
  shobj_description: fixedAnswer(
    'shobj_description',
    [[integerOrNull, textOrNull]],
    () => ['Int64', 'String'],
    'String',
    null,
  ),
};
