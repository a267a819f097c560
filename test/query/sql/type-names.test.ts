import t from 'tap';
import type { SqlType } from '../../../src/query/sql/parse/ast.js';
import { arrowNameOf, dataTypeOfSql, sqlNameOf } from '../../../src/query/sql/types/type-names.js';

const sql = (name: string, args: number[] = [], unsigned = false): SqlType => ({ name, args, unsigned });

t.test('maps SQL type names to GreptimeDB types', async (t) => {
  const cases: Array<[SqlType, string]> = [
    [sql('TIMESTAMP'), 'TimestampMillisecond'],
    [sql('TIMESTAMP', [0]), 'TimestampSecond'],
    [sql('TIMESTAMP', [3]), 'TimestampMillisecond'],
    [sql('TIMESTAMP', [6]), 'TimestampMicrosecond'],
    [sql('TIMESTAMP', [9]), 'TimestampNanosecond'],
    [sql('TIMESTAMP_S'), 'TimestampSecond'],
    [sql('TIMESTAMP_SEC'), 'TimestampSecond'],
    [sql('TIMESTAMP_MS'), 'TimestampMillisecond'],
    [sql('TIMESTAMP_US'), 'TimestampMicrosecond'],
    [sql('TIMESTAMP_NS'), 'TimestampNanosecond'],
    [sql('DOUBLE'), 'Float64'],
    [sql('FLOAT64'), 'Float64'],
    [sql('FLOAT'), 'Float32'],
    [sql('BIGINT'), 'Int64'],
    [sql('BIGINT', [], true), 'UInt64'],
    [sql('INT'), 'Int32'],
    [sql('INTEGER'), 'Int32'],
    [sql('INT', [], true), 'UInt32'],
    [sql('SMALLINT'), 'Int16'],
    [sql('TINYINT', [], true), 'UInt8'],
    [sql('STRING'), 'String'],
    [sql('TEXT'), 'String'],
    [sql('VARCHAR', [255]), 'String'],
    [sql('BOOLEAN'), 'Boolean'],
    [sql('BOOL'), 'Boolean'],
    [sql('DATE'), 'Date'],
    [sql('BINARY'), 'Binary'],
    [sql('VARBINARY'), 'Binary'],
  ];
  for (const [type, expected] of cases) t.equal(dataTypeOfSql(type), expected, JSON.stringify(type));
});

t.test('unknown types and odd precisions are refused', async (t) => {
  t.throws(() => dataTypeOfSql(sql('GEOMETRY')), { code: 1001 });
  t.throws(() => dataTypeOfSql(sql('TIMESTAMP', [4])), { code: 1004 });
  t.throws(() => dataTypeOfSql(sql('STRING', [], true)), { code: 1001 });
});

t.test('prints types as SHOW CREATE TABLE and Arrow do', async (t) => {
  t.equal(sqlNameOf('TimestampMillisecond'), 'TIMESTAMP(3)');
  t.equal(sqlNameOf('Float64'), 'DOUBLE');
  t.equal(sqlNameOf('Int32'), 'INT');
  t.equal(sqlNameOf('UInt64'), 'BIGINT UNSIGNED');
  t.equal(arrowNameOf('TimestampMillisecond'), 'Timestamp(ms)');
  t.equal(arrowNameOf('String'), 'Utf8');
  t.equal(arrowNameOf('Date'), 'Date32');
});
