/**
 * Splunk HEC indexer acknowledgement over real HTTP: ackIds per channel, `/ack` answering true
 * only for durable rows and only once, Splunk's channel errors and busy refusals, acknowledgement
 * off by default, and every id reported true surviving SIGKILL. No npm HEC client speaks the
 * acknowledgement protocol (splunk-logging only sends), so a small fetch client plays one, the way
 * Splunk documents a client should: its own GUID channel, ids saved, `/ack` polled.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from 'splunk-logging';
import t from 'tap';
import { parseJsonExact, parseJsonOrUndefined } from '../helpers/json.js';
import { type SqlBody, sql, startServer, tempDir } from '../helpers/server.js';

const BASE = '/v1/eventcollector/services/collector';
const ACK_ON = '[hec]\nack_enabled = true';

interface Answer {
  status: number;
  json: unknown;
  text: string;
}

async function post(url: string, path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${url}${BASE}${path}`, { method: 'POST', body, headers });
  const text = await res.text();
  const json = parseJsonOrUndefined(text);
  return { status: res.status, json, text };
}

/** One acknowledging client: its own channel, sent in the header, as Splunk recommends. */
class AckClient {
  constructor(
    private readonly url: () => string,
    private readonly headers: Record<string, string> = {},
    readonly channel = randomUUID().toUpperCase(),
  ) {}

  /** Sends a body to `/event` (or `path`) and returns the ackId of the 200. */
  async send(body: string, path = '/event'): Promise<number> {
    const res = await post(this.url(), path, body, { ...this.headers, 'x-splunk-request-channel': this.channel });
    const json = res.json as { ackId?: unknown } | undefined;
    if (res.status !== 200 || typeof json?.ackId !== 'number') throw new Error(`${path}: ${res.status} ${res.text}`);
    return json.ackId;
  }

  /** Asks `/ack` about ids; returns the answer's `acks` object. */
  async ack(ids: number[]): Promise<Record<string, boolean>> {
    const res = await post(this.url(), '/ack', JSON.stringify({ acks: ids }), {
      ...this.headers,
      'x-splunk-request-channel': this.channel,
    });
    if (res.status !== 200) throw new Error(`/ack: ${res.status} ${res.text}`);
    return (res.json as { acks: Record<string, boolean> }).acks;
  }
}

async function rows(url: string, statement: string, headers: Record<string, string> = {}): Promise<unknown[][]> {
  const res = await sql(url, statement, undefined, headers);
  const out = (parseJsonExact(res.text) as SqlBody).output?.[0]?.records?.rows;
  if (!out) throw new Error(`${statement}: ${res.text}`);
  return out;
}

/** Rows per `req` tag of a table, as a plain object. */
async function rowsPerRequest(url: string, table: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [req, n] of await rows(url, `SELECT req, count(*) FROM ${table} GROUP BY req`)) {
    counts[String(req)] = Number(n);
  }
  return counts;
}

t.test('indexer acknowledgement on', async (t) => {
  const server = await startServer({ extraToml: ACK_ON });
  t.teardown(() => server.stop());
  const url = server.url;

  t.test('writes get ackIds counted per channel from 0, on every write path and alias', async (t) => {
    const a = new AckClient(() => url);
    const b = new AckClient(() => url);
    const res = await post(url, '/event?table=ids', '{"event":"first"}', { 'x-splunk-request-channel': a.channel });
    t.equal(res.status, 200, res.text);
    t.equal(res.text, '{"text":"Success","code":0,"ackId":0}', "Splunk's body, ackId last");
    t.equal(await a.send('{"event":"x"}', '?table=ids'), 1, 'bare /services/collector');
    t.equal(await a.send('{"event":"x"}', '/event/1.0?table=ids'), 2);
    t.equal(await a.send('raw line', '/raw?table=ids'), 3);
    t.equal(await a.send('raw line', '/raw/1.0?table=ids'), 4);
    t.equal(await b.send('{"event":"x"}', '/event?table=ids'), 0, 'another channel counts on its own');
    const query = await post(url, `/event?table=ids&channel=${b.channel.toLowerCase()}`, '{"event":"x"}');
    t.same(query.json, { text: 'Success', code: 0, ackId: 1 }, '?channel= names the same channel, in any case');
    t.equal((await rows(url, 'SELECT count(*) FROM ids'))[0]?.[0], 7);
  });

  t.test('/ack reports true for readable rows, once; false for anything else', async (t) => {
    const client = new AckClient(() => url);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        await client.send(`{"event":"e${i}","fields":{"req":"r${i}"}}{"event":"more","fields":{"req":"r${i}"}}`),
      );
    }
    t.same(ids, [0, 1, 2, 3, 4]);
    t.same(await client.ack([0, 1, 2, 3, 4, 99]), { 0: true, 1: true, 2: true, 3: true, 4: true, 99: false });
    t.same(await rowsPerRequest(url, 'splunk_logs'), { r0: 2, r1: 2, r2: 2, r3: 2, r4: 2 }, 'every acked row reads');
    t.same(await client.ack([0, 1]), { 0: false, 1: false }, 'an id reported true is forgotten');
    const other = new AckClient(() => url);
    t.same(await other.ack([0, 1]), { 0: false, 1: false }, "a channel cannot see another's ids");
    t.equal(await client.send('{"event":"later","fields":{"req":"r5"}}'), 5, 'ids keep counting after a query');
    const alias = await post(url, `/ack/1.0?channel=${client.channel}`, '{"acks":[5,5]}');
    t.equal(alias.status, 200, alias.text);
    t.equal(alias.text, '{"acks":{"5":true}}', '/ack/1.0 with ?channel=; a repeated id keeps its first answer');
  });

  t.test('a request that fails takes no id and stores nothing', async (t) => {
    const client = new AckClient(() => url);
    t.equal(await client.send('{"event":"ok"}', '/event?table=failing'), 0);
    const bad = await post(url, '/event?table=failing', '{"event":"ok"}{"event":""}', {
      'x-splunk-request-channel': client.channel,
    });
    t.equal(bad.status, 400);
    t.same(bad.json, { text: 'Event field cannot be blank', code: 13, 'invalid-event-number': 1 }, 'no ackId');
    t.equal(await client.send('{"event":"ok again"}', '/event?table=failing'), 1, 'the next success takes the next id');
    t.same(await client.ack([0, 1, 2]), { 0: true, 1: true, 2: false });
    t.same(await rows(url, 'SELECT event FROM failing ORDER BY event'), [['ok'], ['ok again']]);
  });

  t.test("Splunk's errors for a missing or malformed channel and a bad /ack body", async (t) => {
    const missing = { text: 'Data channel is missing', code: 10 };
    for (const path of ['/event?table=no_channel', '?table=no_channel', '/raw?table=no_channel', '/ack']) {
      const body = path === '/ack' ? '{"acks":[0]}' : '{"event":"x"}';
      const res = await post(url, path, body);
      t.equal(res.status, 400, `${path}: ${res.text}`);
      t.same(res.json, missing, path);
    }
    const invalid = await post(url, '/ack', '{"acks":[0]}', { 'x-splunk-request-channel': 'not-a-guid' });
    t.equal(invalid.status, 400);
    t.same(invalid.json, { text: 'Invalid data channel', code: 11 });
    const channel = { 'x-splunk-request-channel': randomUUID() };
    for (const body of ['{"acks":"0"}', '{"acks":[-1]}', '{"acks":[1.5]}', '[0]', '{"acks":[0]', '{}']) {
      const res = await post(url, '/ack', body, channel);
      t.equal(res.status, 400, body);
      t.same(res.json, { text: 'Invalid data format', code: 6 }, body);
    }
    t.same((await post(url, '/ack', '', channel)).json, { text: 'No data', code: 5 });
    const tables = await rows(url, 'SHOW TABLES');
    t.notOk(
      tables.some((r) => r[0] === 'no_channel'),
      'a write refused for its channel stores nothing',
    );
  });

  t.test("Splunk's JavaScript logger, given a channel in its URL, gets an ackId", async (t) => {
    const channel = randomUUID();
    const logger = new Logger({ token: 'unused', url: `${url}${BASE}/event?table=from_logger&channel=${channel}` });
    const body = await new Promise<unknown>((resolve, reject) => {
      logger.error = (err) => reject(err);
      logger.send({ message: 'acknowledged' }, (err, _res, b) => (err ? reject(err) : resolve(b)));
    });
    t.same(body, { text: 'Success', code: 0, ackId: 0 });
    const res = await post(url, `/ack?channel=${channel}`, '{"acks":[0]}');
    t.same(res.json, { acks: { 0: true } });
    t.same(await rows(url, 'SELECT count(*) FROM from_logger'), [[1]]);
  });
});

t.test('acknowledgement off by default: no ackId, /ack answers "ACK is disabled"', async (t) => {
  const server = await startServer();
  t.teardown(() => server.stop());
  const url = server.url;
  const channel = randomUUID();
  const withChannel = await post(url, '/event', '{"event":"x"}', { 'x-splunk-request-channel': channel });
  t.equal(withChannel.text, '{"text":"Success","code":0}');
  t.same((await post(url, '/raw', 'no channel needed')).json, { text: 'Success', code: 0 });
  const ack = await post(url, '/ack', '{"acks":[0]}', { 'x-splunk-request-channel': channel });
  t.equal(ack.status, 400);
  t.same(ack.json, { text: 'ACK is disabled', code: 14 });
  t.same((await post(url, '/ack', '{"acks":[0]}')).json, { text: 'ACK is disabled', code: 14 });
});

t.test('bounded acknowledgement state: busy (503, code 9) before writing, room again after /ack', async (t) => {
  const server = await startServer({
    topLevelToml: 'user_provider = "static_user_provider:cmd:alice=apw,bob=bpw,reader:ro=rpw"',
    extraToml: `${ACK_ON}\nack_max_channels = 2\nack_max_pending_per_channel = 2`,
  });
  t.teardown(() => server.stop());
  const url = server.url;
  const alice = { authorization: 'Splunk alice:apw' };
  const basic = { authorization: `Basic ${Buffer.from('alice:apw').toString('base64')}` };
  const busy = { text: 'Server is busy', code: 9 };

  const a = new AckClient(() => url, alice);
  t.same([await a.send('{"event":"a0"}'), await a.send('{"event":"a1"}')], [0, 1]);
  const full = await post(url, '/event', '{"event":"refused"}', { ...alice, 'x-splunk-request-channel': a.channel });
  t.equal(full.status, 503, full.text);
  t.same(full.json, busy, 'a channel with as many ids pending as allowed');

  const b = new AckClient(() => url, { authorization: 'Splunk bob:bpw' });
  t.equal(await b.send('{"event":"b0"}'), 0);
  const third = new AckClient(() => url, alice);
  const refused = await post(url, '/event', '{"event":"refused"}', {
    ...alice,
    'x-splunk-request-channel': third.channel,
  });
  t.equal(refused.status, 503, refused.text);
  t.same(refused.json, busy, 'a third channel while both hold pending ids');

  t.same(await new AckClient(() => url, { authorization: 'Splunk bob:bpw' }).ack([0]), { 0: false });
  const asBob = await post(url, '/ack', '{"acks":[0,1]}', {
    authorization: 'Splunk bob:bpw',
    'x-splunk-request-channel': a.channel,
  });
  t.same(asBob.json, { acks: { 0: false, 1: false } }, "channels are per user: bob cannot consume alice's ids");
  const asReader = await post(url, '/ack', '{"acks":[0]}', {
    authorization: 'Splunk reader:rpw',
    'x-splunk-request-channel': a.channel,
  });
  t.equal(asReader.status, 403, '/ack needs the write permission of an ingest token');
  const anonymous = await post(url, '/ack', '{"acks":[0]}', { 'x-splunk-request-channel': a.channel });
  t.same(anonymous.json, { text: 'Token is required', code: 2 });

  t.same(await a.ack([0, 1]), { 0: true, 1: true });
  t.equal(await a.send('{"event":"a2"}'), 2, 'reported ids free their channel');
  t.same(await b.ack([0]), { 0: true });
  t.equal(await third.send('{"event":"c0"}'), 0, 'an emptied channel is dropped to make room for a new one');
  t.same(
    (await rows(url, 'SELECT event FROM splunk_logs ORDER BY event', basic)).map((r) => r[0]),
    ['a0', 'a1', 'a2', 'b0', 'c0'],
    'nothing of a busy refusal was written',
  );
});

t.test('every id /ack reported true survives SIGKILL', async (t) => {
  const dataDir = tempDir();
  let server = await startServer({ dataDir, extraToml: ACK_ON });
  t.teardown(() => server.stop());
  const url = () => server.url;
  const clients = [new AckClient(url), new AckClient(url), new AckClient(url)];
  const eventsPerRequest = 3;
  const body = (req: string) =>
    Array.from({ length: eventsPerRequest }, (_, i) => JSON.stringify({ event: `${req}/${i}`, fields: { req } })).join(
      '',
    );

  /** Request tag of each issued id, per client; and the tags /ack reported true. */
  const issued = clients.map(() => new Map<number, string>());
  const acknowledged: string[] = [];
  let sent = 0;
  let stop = false;
  const writers = clients.map(async (client, c) => {
    while (!stop) {
      const req = `c${c}-${sent++}`;
      try {
        issued[c]?.set(await client.send(body(req), '/event?table=acked'), req);
      } catch {
        return; // the server was killed under this request
      }
    }
  });
  const poll = async (): Promise<void> => {
    for (const [c, client] of clients.entries()) {
      const ids = [...(issued[c]?.keys() ?? [])];
      if (ids.length === 0) continue;
      for (const [id, durable] of Object.entries(await client.ack(ids))) {
        if (!durable) continue;
        acknowledged.push(issued[c]?.get(Number(id)) as string);
        issued[c]?.delete(Number(id));
      }
    }
  };
  const deadline = Date.now() + 60_000;
  while (acknowledged.length < 60 && Date.now() < deadline) {
    await poll();
    await new Promise((resolve) => setTimeout(resolve, 5)); // let the writers' answers in
  }
  t.ok(acknowledged.length >= 60, `${acknowledged.length} requests acknowledged before the kill`);
  await server.kill();
  stop = true;
  await Promise.all(writers);

  server = await startServer({ dataDir, extraToml: ACK_ON });
  const stored = await rowsPerRequest(server.url, 'acked');
  const missing = acknowledged.filter((req) => stored[req] !== eventsPerRequest);
  t.same(missing, [], `each of ${acknowledged.length} acknowledged requests has all ${eventsPerRequest} rows`);

  const after = new AckClient(url, {}, clients[0]?.channel);
  t.same(await after.ack([0]), { 0: false }, 'acknowledgement state is not kept across a restart');
  t.equal(await after.send('{"event":"again","fields":{"req":"again"}}', '/event?table=acked'), 0, 'ids restart at 0');
});
