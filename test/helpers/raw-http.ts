/**
 * One HTTP request over its own connection with node:http, which sends the path byte for byte
 * (fetch would resolve `..` and `//` first) and allows a body on any method.
 */
import http from 'node:http';

export interface RawAnswer {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

export function rawRequest(
  base: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
  body?: string | Uint8Array,
): Promise<RawAnswer> {
  const url = new URL(base);
  // node:http sends a GET body without a length unless told one.
  const sized = body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers };
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method, path: pathAndQuery, headers: sized, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error(`${method} ${pathAndQuery}: no answer in 20 s`)));
    req.on('error', reject);
    req.end(body);
  });
}
