/** Stage 4: the body, streamed in chunks under the limit; uWS detaches each chunk after its callback. */
import t from 'tap';
import { type BodySource, hasBody, readBody } from '../../../src/router/http/body-reader.js';

type OnData = (chunk: ArrayBuffer, last: boolean) => void;

/** A uWS stand-in: `feed` delivers chunks as uWS would, then detaches them. */
function source(): BodySource & { feed(chunks: string[]): void } {
  let onData: OnData | null = null;
  return {
    onData(handler: OnData) {
      onData = handler;
      return this as never;
    },
    feed(chunks) {
      chunks.forEach((c, i) => {
        const buf = new Uint8Array(Buffer.from(c)).buffer;
        onData?.(buf, i === chunks.length - 1);
        structuredClone(buf, { transfer: [buf] }); // detached, as uWS leaves it
      });
    },
  };
}

const never = new AbortController().signal;

t.test('GET and HEAD have a body only when they declare one', async (t) => {
  t.notOk(hasBody('GET', 0, new Map()));
  t.ok(hasBody('GET', 3, new Map()));
  t.ok(hasBody('HEAD', 0, new Map([['transfer-encoding', 'chunked']])));
  t.ok(hasBody('POST', 0, new Map()));
});

t.test('joins chunks, with or without a declared length (also a wrong one)', async (t) => {
  for (const declared of [0, 6, 4, 9]) {
    const res = source();
    const body = readBody(res, declared, 0, never);
    res.feed(['ab', 'cd', 'ef']);
    t.equal((await body).toString(), 'abcdef', `declared ${declared}`);
  }
});

t.test('refuses past the limit with 413', async (t) => {
  const res = source();
  const body = readBody(res, 0, 3, never);
  res.feed(['ab', 'cd']);
  await t.rejects(body, { name: 'ClientError', kind: 'BodyTooLarge', status: 413 });
});

t.test('rejects with the abort reason (timeout, client gone)', async (t) => {
  const controller = new AbortController();
  const res = source();
  const body = readBody(res, 0, 0, controller.signal);
  controller.abort(new Error('timed out'));
  await t.rejects(body, { message: 'timed out' });
});
