/** A minimal keep-alive HTTP POST for the load generators (node:http: less client CPU than fetch). */
import http from 'node:http';

export function post(agent: http.Agent, url: URL, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        headers: { 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A POST that also keeps the answer's text, so a load generator can report its first failure.
 * `contentType`: the content type, or every header to send.
 */
export function postForAnswer(
  agent: http.Agent,
  url: URL,
  body: Buffer,
  contentType: string | Record<string, string>,
): Promise<{ status: number; text: string }> {
  const headers = typeof contentType === 'string' ? { 'content-type': contentType } : contentType;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: 'POST',
        headers: { ...headers, 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('latin1') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
