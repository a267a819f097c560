/**
 * GreptimeDB's build functions: `version()` (over HTTP GreptimeDB answers its bare version; the
 * MySQL and PostgreSQL wire protocols, which ShoalDB does not speak, dress it up) and `build()`
 * (the branch, commit, dirty flag and version on separate lines). ShoalDB's dist carries no git
 * metadata, so the git fields say `unknown`, which is GreptimeDB's own text when it has none.
 */
import { VERSION } from '../../../shared/version.js';
import { planError } from '../types/coercion.js';
import type { Value } from '../types/values.js';
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

/** Build functions by SQL name. */
export const SYSTEM_FUNCTIONS: Record<string, ScalarFunction> = {
  version: constant('version', VERSION),
  build: constant(
    'build',
    `branch: ${UNKNOWN}\ncommit: ${UNKNOWN}\ncommit short: ${UNKNOWN}\ndirty: ${UNKNOWN}\nversion: ${VERSION}`,
  ),
};
