/**
 * GreptimeDB's build functions: `version()` (over HTTP GreptimeDB answers its bare version; the
 * MySQL and PostgreSQL wire protocols, which ShoalDB does not speak, dress it up) and `build()`
 * (the branch, commit, dirty flag and version on separate lines). ShoalDB's dist carries no git
 * metadata, so the git fields say `unknown`, which is GreptimeDB's own text when it has none.
 * Also PostgreSQL's `current_schemas`, which GreptimeDB registers for its PostgreSQL clients.
 */
import { listTypeOf } from '../../../shared/types.js';
import { VERSION } from '../../../shared/version.js';
import { planError } from '../types/coercion.js';
import type { Value } from '../types/values.js';
import { signatureError } from './typed.js';
import type { ScalarFunction } from './types.js';

const UNKNOWN = 'unknown';

function constant(name: string, text: string): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 0) throw planError(`${name} function requires 0 arguments, got ${argTypes.length}`);
      return { argTypes, returnType: 'String' };
    },
    evaluate: (_args, rowCount) => new Array<Value>(rowCount).fill(text),
  };
}

/**
 * `current_schemas(include_implicit)`: PostgreSQL's search path as GreptimeDB answers it, always
 * `public` (not the session's database), then its implicit schemas when asked. A NULL flag reads
 * as false, the value under its null slot.
 */
const currentSchemas: ScalarFunction = {
  kind: 'scalar',
  name: 'current_schemas',
  bind(argTypes) {
    if (argTypes.length !== 1 || !(argTypes[0] === 'Boolean' || argTypes[0] === 'Null')) {
      throw signatureError('current_schemas', argTypes);
    }
    return { argTypes: ['Boolean'], returnType: listTypeOf('String') };
  },
  evaluate: (args, rowCount) =>
    (args[0] as Value[])
      .slice(0, rowCount)
      .map((implicit) =>
        implicit === true ? ['public', 'information_schema', 'pg_catalog', 'greptime_private'] : ['public'],
      ),
};

/** Build and session functions by SQL name. */
export const SYSTEM_FUNCTIONS: Record<string, ScalarFunction> = {
  version: constant('version', VERSION),
  build: constant(
    'build',
    `branch: ${UNKNOWN}\ncommit: ${UNKNOWN}\ncommit short: ${UNKNOWN}\ndirty: ${UNKNOWN}\nversion: ${VERSION}`,
  ),
  current_schemas: currentSchemas,
};
