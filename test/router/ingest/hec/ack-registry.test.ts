/** HEC indexer acknowledgement state: ids per channel, report-once, and the three memory bounds. */
import t, { type Test } from 'tap';
import { ClientError } from '../../../../src/router/errors/catalogue.js';
import { ACK_CHANNEL_IDLE_MS, type AckLimits, AckRegistry } from '../../../../src/router/ingest/hec/ack-registry.js';

const roomy: AckLimits = { maxChannels: 100, maxPendingPerChannel: 100, maxPending: 1000 };

/** Issues one id on `key` as a successful write would. */
const issue = (acks: AckRegistry, key: string): number => acks.reserve(key).issue();

const answer = (acks: AckRegistry, key: string, ids: number[]) => Object.fromEntries(acks.query(key, ids));

function throwsBusy(t: Test, fn: () => unknown, message: string): void {
  try {
    fn();
    t.fail(`${message}: no error`);
  } catch (err) {
    t.ok(err instanceof ClientError, message);
    const e = err as ClientError;
    t.match(
      { status: e.status, code: e.hecCode, message: e.message },
      { status: 503, code: 9, message: 'Server is busy' },
      message,
    );
  }
}

t.test('numbers requests per channel from 0 and reports each id true once', async (t) => {
  const acks = new AckRegistry(roomy);
  t.same([issue(acks, 'a'), issue(acks, 'a'), issue(acks, 'b'), issue(acks, 'a')], [0, 1, 0, 2]);
  t.same(answer(acks, 'a', [0, 2, 7]), { 0: true, 2: true, 7: false });
  t.same(answer(acks, 'a', [0, 1, 1]), { 0: false, 1: true }, 'reported ids are forgotten; a repeat keeps its answer');
  t.same(answer(acks, 'b', [0]), { 0: true });
  t.same(answer(acks, 'unknown', [0]), { 0: false });
  t.equal(acks.channelCount, 2, 'querying an unknown channel does not create it');
  t.equal(acks.pendingCount, 0);
});

t.test('a cancelled request takes no id and is never reported true', async (t) => {
  const acks = new AckRegistry(roomy);
  const failed = acks.reserve('a');
  const ok = acks.reserve('a');
  t.equal(acks.pendingCount, 2, 'requests being written count as pending');
  failed.cancel();
  t.equal(ok.issue(), 0, 'ids are issued in order of durability, without gaps');
  t.same(answer(acks, 'a', [0, 1]), { 0: true, 1: false });
  t.throws(() => failed.issue(), 'a ticket is settled once');
});

t.test('a full channel is busy until its ids are reported, without touching other channels', async (t) => {
  const acks = new AckRegistry({ ...roomy, maxPendingPerChannel: 2 });
  issue(acks, 'a');
  const writing = acks.reserve('a');
  throwsBusy(t, () => acks.reserve('a'), 'third pending id');
  t.equal(issue(acks, 'b'), 0, 'another channel still has room');
  writing.issue();
  t.same(answer(acks, 'a', [0]), { 0: true });
  t.equal(issue(acks, 'a'), 2, 'room again once an id is reported');
});

t.test('past the channel limit an empty channel makes room, and a busy one never does', async (t) => {
  const acks = new AckRegistry({ ...roomy, maxChannels: 2 });
  issue(acks, 'a');
  issue(acks, 'b');
  throwsBusy(t, () => acks.reserve('c'), 'both channels hold pending ids');
  t.same(answer(acks, 'a', [0]), { 0: true });
  t.equal(issue(acks, 'c'), 0, "the emptied channel 'a' was dropped for 'c'");
  t.equal(acks.channelCount, 2);
  t.same(answer(acks, 'b', [0]), { 0: true }, "'b' kept its id");
  t.equal(issue(acks, 'a'), 0, "a dropped channel starts again at 0 (it had nothing outstanding); 'b' made room");
});

t.test('channels idle past ACK_CHANNEL_IDLE_MS make room, least recently used first', async (t) => {
  let now = 0;
  const acks = new AckRegistry({ maxChannels: 2, maxPendingPerChannel: 10, maxPending: 3 }, () => now);
  issue(acks, 'old');
  now = 1000;
  issue(acks, 'new');
  issue(acks, 'new');
  throwsBusy(t, () => acks.reserve('new'), 'total pending reached, nothing idle');
  now = ACK_CHANNEL_IDLE_MS - 1;
  throwsBusy(t, () => acks.reserve('third'), "'old' is not idle long enough yet");
  now = ACK_CHANNEL_IDLE_MS;
  t.equal(issue(acks, 'new'), 2, "the idle channel 'old' was dropped with its pending id");
  t.same(answer(acks, 'old', [0]), { 0: false }, "a dropped channel's ids answer false");
  t.equal(acks.pendingCount, 3);
});

t.test('a channel with a request being written is never dropped', async (t) => {
  let now = 0;
  const acks = new AckRegistry({ maxChannels: 1, maxPendingPerChannel: 10, maxPending: 10 }, () => now);
  const writing = acks.reserve('a');
  now += 2 * ACK_CHANNEL_IDLE_MS;
  throwsBusy(t, () => acks.reserve('b'), 'the only channel is being written to');
  t.equal(writing.issue(), 0);
  t.same(answer(acks, 'a', [0]), { 0: true });
});
