/**
 * The error catalogue, walked: every kind has a unique code and name, an answer on every family,
 * and renders the body its shape documents. (The same shapes over real routes:
 * test/http/error-catalogue.test.ts.)
 */
import type protobuf from 'protobufjs';
import t, { type Test } from 'tap';
import {
  allErrorKinds,
  type BodyShape,
  ClientError,
  type ClientErrorKind,
  ERROR_FAMILIES,
  type ErrorKind,
} from '../../../src/router/errors/catalogue.js';
import { errorResponse } from '../../../src/router/errors/error-response.js';
import type { HttpResponse } from '../../../src/router/http/context.js';
import { DbError } from '../../../src/shared/errors.js';
import { OtlpTypes } from '../../../src/shared/proto/otlp.js';

const SHAPES: readonly BodyShape[] = ['greptime', 'short', 'metricsapi', 'prometheus', 'hec', 'otlp', 'text', 'empty'];

/** An error of the kind, as the server would meet it. */
function instanceOf(kind: ErrorKind): unknown {
  if (kind.code < 10000) return new DbError(kind.code, `a ${kind.name} error`);
  if (kind.name === 'Uncaught') return new TypeError('x is undefined');
  if (kind.name === 'ResourceLimit') return new RangeError('Invalid array length');
  return new ClientError(kind.name as ClientErrorKind, `a ${kind.name} error`);
}

/** Checks `response` against what its shape documents; returns the error text it carries. */
function checkShape(t: Test, shape: BodyShape, response: HttpResponse, where: string): void {
  const type = response.headers?.['content-type'];
  const json = (): Record<string, unknown> => JSON.parse(String(response.body));
  switch (shape) {
    case 'greptime': {
      t.equal(type, 'application/json', where);
      const body = json();
      t.same(Object.keys(body), ['code', 'error', 'execution_time_ms'], where);
      t.equal(response.headers?.['x-greptime-err-code'], String(body.code), where);
      t.match(response.headers?.['x-greptime-err-msg'], /^error: .*, execution_time_ms: \d+$/, where);
      return;
    }
    case 'short':
      t.equal(type, 'application/json', where);
      t.same(Object.keys(json()), ['error'], where);
      return;
    case 'metricsapi':
      t.same(Object.keys(json()), ['status', 'error', 'errorType'], where);
      t.equal(json().status, 'error', where);
      return;
    case 'prometheus':
      t.same(Object.keys(json()), ['status', 'errorType', 'error'], where);
      t.match(json().errorType, /^(bad_data|execution|timeout|canceled|internal|not_found)$/, where);
      return;
    case 'hec':
      t.match(Object.keys(json()), ['text', 'code'], where);
      t.type(json().code, 'number', where);
      return;
    case 'otlp': {
      t.equal(type, 'application/x-protobuf', where);
      const status = OtlpTypes.rpcStatus.decode(response.body as Uint8Array) as protobuf.Message & {
        message: string;
      };
      t.ok(status.message.length > 0, where);
      return;
    }
    case 'text':
      t.equal(type, 'text/plain; charset=utf-8', where);
      t.type(response.body, 'string', where);
      return;
    case 'empty':
      t.equal(response.body, undefined, where);
      return;
  }
}

t.test('every kind has a unique code and name', async (t) => {
  const kinds = allErrorKinds();
  t.ok(kinds.length > 60);
  t.equal(new Set(kinds.map((k) => k.code)).size, kinds.length, 'codes are unique');
  t.equal(new Set(kinds.map((k) => k.name)).size, kinds.length, 'names are unique');
});

t.test('every kind answers on every family with an HTTP status and a known shape', async (t) => {
  for (const kind of allErrorKinds()) {
    for (const family of ERROR_FAMILIES) {
      const answer = kind.answers[family];
      const where = `${kind.name} on ${family}`;
      t.ok(Number.isInteger(answer.status) && answer.status >= 400 && answer.status < 600, where);
      t.ok(SHAPES.includes(answer.shape), where);
      if (answer.shape === 'prometheus') t.ok(answer.errorType, `${where}: errorType`);
      if (answer.shape === 'hec') t.type(answer.hecCode, 'number', `${where}: hec code`);
    }
  }
});

t.test('every kind renders its documented status and body on every family', async (t) => {
  for (const kind of allErrorKinds()) {
    for (const family of ERROR_FAMILIES) {
      const { status, shape } = kind.answers[family];
      const response = errorResponse(instanceOf(kind), family, 7);
      const where = `${kind.name} on ${family}`;
      t.equal(response.status, status, where);
      checkShape(t, shape, response, where);
    }
  }
});

t.test('GreptimeDB kinds keep their code and status; internal ones are masked', async (t) => {
  const byName = new Map(allErrorKinds().map((k) => [k.name, k]));
  t.equal(byName.get('TableNotFound')?.answers.greptime.status, 400);
  t.equal(byName.get('RegionReadonly')?.answers.greptime.status, 401);
  t.equal(byName.get('RateLimited')?.answers.short.status, 429);
  t.same(JSON.parse(String(errorResponse(new DbError(1003, 'secret'), 'greptime', 3).body)), {
    code: 1003,
    error: 'Internal error: 1003',
    execution_time_ms: 3,
  });
  // Codes outside the table answer as Unknown but keep their own code in the body.
  const flow = errorResponse(new DbError(8000, 'flow exists'), 'greptime', 0);
  t.equal(flow.status, 500);
  t.equal(JSON.parse(String(flow.body)).code, 8000);
});

t.test('Retry-After rides on GreptimeDB shapes only; a ClientError brings its own headers', async (t) => {
  const busy = new DbError(5000, 'memtable full', { retryAfterSeconds: 1 });
  t.equal(errorResponse(busy, 'short', 0).headers?.['retry-after'], '1');
  t.equal(errorResponse(busy, 'hec', 0).headers?.['retry-after'], undefined);
  t.equal(errorResponse(busy, 'greptime', 0).headers?.['retry-after'], '1');
  const limited = new ClientError('WriteBytesExhausted', 'full', { headers: { 'retry-after': '1' } });
  t.same(errorResponse(limited, 'hec', 0).headers, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' });
});
