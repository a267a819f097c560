/**
 * `json_path`: queries the input value (any type) with `json_path` (required; the subset in
 * json-path-query.ts). The result is the list of matches, or with `result_index` the match at
 * that position (null when there are fewer matches).
 */
import { JsonPathError, JsonPathQuery } from '../json-path-query.js';
import { inputOf, type ProcessorFactory } from '../processor.js';

export const jsonPath: ProcessorFactory = (options) => {
  const fields = options.requiredFields();
  const path = options.requiredString('json_path');
  let query: JsonPathQuery;
  try {
    query = JsonPathQuery.compile(path);
  } catch (err) {
    if (!(err instanceof JsonPathError)) throw err;
    return options.fail(err.message, 'json_path');
  }
  const resultIndex = options.integer('result_index');
  if (resultIndex !== undefined && resultIndex < 0) options.fail('result_index must not be negative', 'result_index');
  return {
    name: 'json_path',
    exec(record) {
      for (const field of fields) {
        const v = inputOf('json_path', options, record, field);
        if (v === undefined) continue;
        const found = query.find(v);
        record[field.output] = resultIndex === undefined ? found : (found[resultIndex] ?? null);
      }
      return undefined;
    },
  };
};
