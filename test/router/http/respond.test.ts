/** The last stage: one answer per request, CORS on every answer, none after the client left. */
import t from 'tap';
import { BodyChunks } from '../../../src/router/http/context.js';
import { corsPreflight, type ResponseSink, ResponseWriter } from '../../../src/router/http/respond.js';

/**
 * A fake uWS response. `room` is how many body bytes the socket takes before it must drain
 * (`drain()` empties it and runs the onWritable handler, as uWS does when the socket is writable).
 */
function sink(room = Number.POSITIVE_INFINITY): ResponseSink & {
  written: string[];
  streamed: Buffer[];
  drain(): boolean;
  writable: ((offset: number) => boolean) | null;
} {
  const written: string[] = [];
  const streamed: Buffer[] = [];
  let offset = 0;
  let left = room;
  const self = {
    written,
    streamed,
    writable: null as ((offset: number) => boolean) | null,
    drain() {
      left = room;
      return self.writable?.(offset) ?? true;
    },
    getWriteOffset() {
      return offset;
    },
    tryEnd(chunk: unknown, total: number): [boolean, boolean] {
      const bytes = Buffer.from(chunk as Uint8Array);
      const n = Math.min(bytes.length, left);
      streamed.push(bytes.subarray(0, n));
      offset += n;
      left -= n;
      if (offset === total) written.push(`end streamed ${total}`);
      return [n === bytes.length, offset === total];
    },
    onWritable(handler: (offset: number) => boolean) {
      self.writable = handler;
      return self as never;
    },
    cork(fn: () => void) {
      fn();
      return self as never;
    },
    writeStatus(s: string) {
      written.push(`status ${s}`);
      return self as never;
    },
    writeHeader(k: string, v: string) {
      written.push(`${k}: ${v}`);
      return self as never;
    },
    end(body?: unknown) {
      written.push(`end ${body === undefined ? '' : String(body)}`);
      return self as never;
    },
  };
  return self;
}

t.test('writes status, CORS, headers and body once', async (t) => {
  const res = sink();
  const writer = new ResponseWriter(res, 'GET', true);
  t.ok(writer.send({ status: 404, headers: { a: 'b' }, body: 'x' }));
  t.notOk(writer.send({ status: 200 }), 'a second answer is dropped');
  t.same(res.written, ['status 404 Not Found', 'access-control-allow-origin: *', 'a: b', 'end x']);
  t.equal(writer.status, 404);
  t.ok(writer.finished);
});

t.test('HEAD gets no body; an aborted request nothing', async (t) => {
  const head = sink();
  new ResponseWriter(head, 'HEAD', false).send({ status: 200, body: 'x' });
  t.same(head.written, ['status 200 OK', 'end ']);
  const gone = sink();
  const writer = new ResponseWriter(gone, 'GET', false);
  writer.aborted();
  t.notOk(writer.send({ status: 200 }));
  t.same(gone.written, []);
  t.equal(writer.status, 0);
});

t.test('the CORS preflight is answered only with CORS on', async (t) => {
  t.match(corsPreflight('OPTIONS', true), { status: 200, headers: { 'access-control-allow-headers': '*' } });
  t.equal(corsPreflight('OPTIONS', false), null);
  t.equal(corsPreflight('GET', true), null);
});

t.test('a body of chunks is streamed as the socket drains, each byte once, in order', async (t) => {
  const chunks = Array.from({ length: 7 }, (_, i) => Buffer.from(`chunk ${i};`.repeat(i + 1)));
  const whole = Buffer.concat(chunks);
  const res = sink(13);
  t.ok(new ResponseWriter(res, 'GET', false).send({ status: 200, body: new BodyChunks(chunks, whole.length) }));
  let drains = 0;
  while (!res.written.includes(`end streamed ${whole.length}`) && drains < 1000) {
    res.drain();
    drains++;
  }
  t.ok(drains > 1, `the socket drained ${drains} times`);
  t.same(Buffer.concat(res.streamed), whole, 'the client got every byte once, in order');
  t.same(res.written.slice(0, 1), ['status 200 OK']);

  // A socket with room for everything: written at once when small; a large body over several
  // turns of the event loop, about a megabyte each.
  const roomy = sink();
  new ResponseWriter(roomy, 'GET', false).send({ status: 200, body: new BodyChunks(chunks, whole.length) });
  t.same(Buffer.concat(roomy.streamed), whole);
  const big = Array.from({ length: 64 }, (_, i) => Buffer.alloc(64 * 1024, i));
  const bigSize = 64 * 64 * 1024;
  const fast = sink();
  new ResponseWriter(fast, 'GET', false).send({ status: 200, body: new BodyChunks(big, bigSize) });
  const firstTurn = Buffer.concat(fast.streamed).length;
  t.ok(firstTurn > 0 && firstTurn <= (1 << 20) + 64 * 1024, `first turn wrote ${firstTurn} bytes of ${bigSize}`);
  let turns = 1;
  while (!fast.written.includes(`end streamed ${bigSize}`) && turns < 100) {
    await new Promise((resolve) => setImmediate(resolve));
    turns++;
  }
  t.ok(turns >= 4, `written over ${turns} turns`);
  t.same(Buffer.concat(fast.streamed), Buffer.concat(big));

  // No chunks at all: the answer still ends.
  const empty = sink();
  new ResponseWriter(empty, 'GET', false).send({ status: 200, body: new BodyChunks([], 0) });
  t.same(empty.written, ['status 200 OK', 'end ']);

  // The client leaves mid-body: nothing more is written.
  const left = sink(10);
  const writer = new ResponseWriter(left, 'GET', false);
  writer.send({ status: 200, body: new BodyChunks(chunks, whole.length) });
  const before = Buffer.concat(left.streamed).length;
  writer.aborted();
  t.ok(left.drain(), 'the writable handler lets go');
  t.equal(Buffer.concat(left.streamed).length, before, 'no byte after the abort');
});
