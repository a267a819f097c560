/**
 * Splunk index names become table names. GreptimeDB's rule for names is
 * `[a-zA-Z_:-][a-zA-Z0-9_:\-.@#]*`; an index such as `web/prod` or `123logs` is made to fit it
 * (other characters become `_`, a bad first character gets a `_` in front), as GreptimeDB does.
 */

const TABLE_NAME = /^[A-Za-z_:-][A-Za-z0-9_:\-.@#]*$/;
const FIRST_CHAR = /^[A-Za-z_:-]/;
const BAD_CHARS = /[^A-Za-z0-9_:\-.@#]/gu;
/** Longest table name an index may become. */
const TABLE_NAME_CHARS_MAX = 255;

/** Whether `name` is acceptable as a table name as given (used for `?table=`). */
export function isTableName(name: string): boolean {
  return name.length <= TABLE_NAME_CHARS_MAX && TABLE_NAME.test(name);
}

/** The table of a Splunk index, or null when the index is blank or still unusable. */
export function tableOfIndex(index: string): string | null {
  const trimmed = index.trim();
  if (trimmed === '') return null;
  let name = trimmed.replace(BAD_CHARS, '_');
  if (!FIRST_CHAR.test(name)) name = `_${name}`;
  return isTableName(name) ? name : null;
}
