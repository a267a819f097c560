/** The last stage: one answer per request, CORS on every answer, none after the client left. */
import t from 'tap';
import { corsPreflight, type ResponseSink, ResponseWriter } from '../../../src/router/http/respond.js';

function sink(): ResponseSink & { written: string[] } {
  const written: string[] = [];
  const self = {
    written,
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
