/**
 * Remote write through a pipeline (reference ingest §2.4): with `x-greptime-pipeline-name`, each
 * sample is a record of its labels, `greptime_timestamp` (ms) and `greptime_value`, run per metric
 * table; NaN samples are dropped. Through greptime_identity the labels are tags and the time
 * index is in milliseconds; through a stored pipeline its transform decides.
 */
import t from 'tap';
import { postRemoteWrite, snappyBlock, writeRequestBytes } from '../helpers/prom-remote.js';
import { rowsOf, sql, startServer } from '../helpers/server.js';

const T0 = 1_700_000_000_000;

t.test('remote write through pipelines', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const { url } = server;
  const body = snappyBlock(
    writeRequestBytes([
      {
        labels: { __name__: 'piped_up', job: 'api', instance: 'a:9090' },
        samples: [
          { value: 1, timestamp: T0 },
          { value: Number.NaN, timestamp: T0 + 1000 },
          { value: 0, timestamp: T0 + 2000 },
        ],
      },
      { labels: { __name__: 'piped_up', job: 'db', instance: 'b:9090' }, samples: [{ value: 1, timestamp: T0 }] },
      { labels: { __name__: 'piped_temp', room: 'lab' }, samples: [{ value: 21.5, timestamp: T0 }] },
    ]),
  );

  await t.test('greptime_identity: labels as tags, a millisecond time index, NaN dropped', async (t) => {
    const res = await postRemoteWrite(url, body, 'db=public', { 'x-greptime-pipeline-name': 'greptime_identity' });
    t.equal(res.status, 204, res.text);
    const desc = rowsOf((await sql(url, 'DESCRIBE TABLE piped_up')).body).map((r) => `${r[0]} ${r[1]} ${r[5]}`);
    t.same(desc.sort(), [
      'greptime_timestamp TimestampMillisecond TIMESTAMP',
      'greptime_value Float64 FIELD',
      'instance String TAG',
      'job String TAG',
    ]);
    t.same(
      rowsOf(
        (
          await sql(
            url,
            'SELECT job, greptime_timestamp, greptime_value FROM piped_up ORDER BY job, greptime_timestamp',
          )
        ).body,
      ),
      [
        ['api', T0, 1],
        ['api', T0 + 2000, 0],
        ['db', T0, 1],
      ],
    );
    t.same(rowsOf((await sql(url, 'SELECT room, greptime_value FROM piped_temp')).body), [['lab', 21.5]]);
  });

  await t.test('a stored pipeline decides the columns', async (t) => {
    const yaml = [
      'processors:',
      '  - filter:',
      '      field: job',
      '      targets: [db]',
      '  - epoch:',
      '      field: greptime_timestamp',
      '      resolution: ms',
      'transform:',
      '  - field: job',
      '    type: string',
      '    tag: true',
      '  - field: greptime_value',
      '    type: float64',
      '  - field: greptime_timestamp',
      '    type: epoch, ms',
      '    index: timestamp',
    ].join('\n');
    const created = await fetch(`${url}/v1/pipelines/prom_jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-yaml' },
      body: yaml,
    });
    t.equal(created.status, 200, await created.clone().text());
    const res = await postRemoteWrite(url, body, 'db=public', { 'x-greptime-pipeline-name': 'prom_jobs' });
    t.equal(res.status, 204, res.text);
    // `piped_up` exists with tags job and instance; the pipeline's rows carry job only.
    t.same(rowsOf((await sql(url, "SELECT count(*) FROM piped_up WHERE job = 'api'")).body), [[4]], 'db filtered out');
    // Every metric's samples run before any is written: one metric failing stores nothing at all.
    const strictYaml = ['processors:', '  - letter:', '      field: zone', '      method: upper'].join('\n');
    const strict = await fetch(`${url}/v1/pipelines/prom_strict`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-yaml' },
      body: `${strictYaml}\n  - epoch:\n      field: greptime_timestamp\n      resolution: ms\n`,
    });
    t.equal(strict.status, 200, await strict.clone().text());
    const mixed = snappyBlock(
      writeRequestBytes([
        { labels: { __name__: 'atomic_a', zone: 'eu' }, samples: [{ value: 1, timestamp: T0 }] },
        { labels: { __name__: 'atomic_b', host: 'x' }, samples: [{ value: 2, timestamp: T0 }] },
      ]),
    );
    const refused = await postRemoteWrite(url, mixed, 'db=public', { 'x-greptime-pipeline-name': 'prom_strict' });
    t.equal(refused.status, 400, 'atomic_b has no zone label');
    t.not((await sql(url, 'SELECT count(*) FROM atomic_a')).status, 200, 'and atomic_a was not written either');
    const unknown = await postRemoteWrite(url, body, 'db=public', { 'x-greptime-pipeline-name': 'nope' });
    t.equal(unknown.status, 400);
    t.match(unknown.text, /Pipeline not found, name: nope/);
  });
});
