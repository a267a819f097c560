import t from 'tap';
import { ArrivalOrder, ArrivalOrders } from '../../../src/router/ingest/arrival-order.js';

t.test('a ticket gets its turn once every earlier ticket is released, in any release order', async (t) => {
  const order = new ArrivalOrder();
  const [a, b, c] = [order.take(), order.take(), order.take()];
  t.equal(order.turn(a), null, 'the first ticket goes at once');
  const turns: string[] = [];
  const bTurn = order.turn(b)?.then(() => turns.push('b'));
  const cTurn = order.turn(c)?.then(() => turns.push('c'));
  order.release(c);
  await new Promise((r) => setImmediate(r));
  t.same(turns, [], 'a later release lets nobody through');
  order.release(a);
  await bTurn;
  t.same(turns, ['b']);
  order.release(b);
  await cTurn;
  t.same(turns, ['b', 'c']);
  t.ok(order.idle, 'all released');
  order.release(b);
  t.ok(order.idle, 'releasing again changes nothing');
  t.equal(order.turn(a), null, 'a released ticket never waits');
});

t.test('streams are independent and forgotten once idle', async (t) => {
  const orders = new ArrivalOrders();
  const x = orders.take('x');
  const y = orders.take('y');
  t.equal(y.order.turn(y.ticket), null, "another stream's ticket does not wait");
  const x2 = orders.take('x');
  t.equal(x2.order, x.order);
  const waited = x2.order.turn(x2.ticket);
  t.not(waited, null);
  orders.release('x', x.order, x.ticket);
  await waited;
  orders.release('x', x2.order, x2.ticket);
  orders.release('y', y.order, y.ticket);
  t.not(orders.take('x').order, x.order, 'an idle stream starts afresh');
});
