/** Stage 4, continued: Content-Encoding undone under the body limit. */
import zlib from 'node:zlib';
import t from 'tap';
import { decompress } from '../../../src/router/http/decompress.js';

const text = Buffer.from('hello '.repeat(100));

t.test('gzip, deflate (zlib and raw) and br are undone; unknown encodings pass through', async (t) => {
  t.same(decompress(zlib.gzipSync(text), 'gzip', 0), text);
  t.same(decompress(zlib.gzipSync(text), ' X-GZIP ', 0), text);
  t.same(decompress(zlib.deflateSync(text), 'deflate', 0), text);
  t.same(decompress(zlib.deflateRawSync(text), 'deflate', 0), text);
  t.same(decompress(zlib.brotliCompressSync(text), 'br', 0), text);
  t.equal(decompress(text, 'snappy', 0), text);
  t.equal(decompress(text, undefined, 0), text);
});

t.test('past the limit once decompressed is 413; a corrupt body 400', async (t) => {
  t.throws(() => decompress(zlib.gzipSync(text), 'gzip', 10), {
    name: 'ClientError',
    kind: 'BodyTooLarge',
    status: 413,
  });
  t.throws(() => decompress(Buffer.from('not gzip'), 'gzip', 0), {
    kind: 'UndecodableBody',
    status: 400,
    message: /^Failed to decompress the request body \(gzip\): /,
  });
});
