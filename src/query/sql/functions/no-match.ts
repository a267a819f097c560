/** DataFusion's plan error for a call whose argument types fit no signature of the function. */
import type { DataType } from '../../../shared/types.js';
import { planError } from '../types/coercion.js';
import { arrowNameOf } from '../types/type-names.js';

export function noMatch(name: string, argTypes: DataType[]): never {
  throw planError(
    `No function matches the given name and argument types '${name}(${argTypes.map(arrowNameOf).join(', ')})'. You might need to add explicit type casts.`,
  );
}
