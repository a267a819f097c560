/** Stage 1: the public API listener serves only /v1 and /dashboard (exact segments). */
import t from 'tap';
import { allowedOnApiServer, listenerRefusal } from '../../../src/router/http/listener-filter.js';

t.test('the API listener serves /v1 and /dashboard by whole segments', async (t) => {
  for (const p of ['/v1', '/v1/', '/v1/sql', '/dashboard', '/dashboard/x']) t.ok(allowedOnApiServer(p), p);
  for (const p of ['/', '/v10', '/v1-x', '/health', '/metrics', '/debug/log_level', '/dashboardx']) {
    t.notOk(allowedOnApiServer(p), p);
  }
});

t.test('a refused path is RouteNotFound; the main listener refuses nothing', async (t) => {
  t.match(listenerRefusal('api', '/metrics'), { kind: 'RouteNotFound', status: 404 });
  t.equal(listenerRefusal('api', '/v1/sql'), null);
  t.equal(listenerRefusal('main', '/metrics'), null);
});
