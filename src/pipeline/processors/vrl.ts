/**
 * `vrl`: runs a Vector Remap Language program (`source`, required) on the record, in the subset
 * documented in ../vrl/README.md; anything outside it fails at compile time. The program's final
 * value becomes the record (an object) or several records (an array of objects, one-to-many).
 */
import { type ProcessorFactory, RecordError } from '../processor.js';
import type { PipelineRecord } from '../value.js';
import { VrlProgram } from '../vrl/interpreter.js';
import { containsRegex, deepClone, isObject, kindOf, VrlCompileError, VrlRuntimeError } from '../vrl/values.js';

export const vrl: ProcessorFactory = (options) => {
  const source = options.requiredString('source');
  let program: VrlProgram;
  try {
    program = VrlProgram.compile(source);
  } catch (err) {
    if (!(err instanceof VrlCompileError)) throw err;
    return options.fail(err.message, 'source');
  }
  return {
    name: 'vrl',
    exec(record) {
      let result: ReturnType<VrlProgram['run']>['result'];
      try {
        result = program.run(record).result;
      } catch (err) {
        if (err instanceof VrlRuntimeError) throw new RecordError(`Processor vrl: ${err.message}`);
        throw err;
      }
      if (containsRegex(result)) throw new RecordError('Processor vrl: regex values cannot be returned');
      if (isObject(result)) {
        if (result !== record) {
          for (const key of Object.keys(record)) delete record[key];
          Object.assign(record, result);
        }
        return undefined;
      }
      if (Array.isArray(result)) {
        // One row per element, so each must be an object (GreptimeDB's ArrayElementMustBeObject).
        const bad = result.findIndex((r) => !isObject(r));
        if (bad >= 0) {
          throw new RecordError(
            `Processor vrl: array element at index ${bad} must be an object, got ${kindOf(result[bad])}`,
          );
        }
        // Elements may share structure (`[., .]`); later steps change records in place.
        return result.map((r) => deepClone(r as PipelineRecord));
      }
      throw new RecordError(
        `Processor vrl: the program must return an object or an array of objects, got ${kindOf(result)}`,
      );
    },
  };
};
