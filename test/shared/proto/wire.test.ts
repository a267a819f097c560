/**
 * The shared wire reader (src/shared/proto/wire.ts): both dialects read the same values, and
 * differ only where their decoders need them to (what they refuse and how they word it).
 */
import t from 'tap';
import { WireError, WireReader, WireType } from '../../../src/shared/proto/wire.js';

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);

t.test('varints, fixed-width values and length-delimited fields', async (t) => {
  for (const dialect of ['strict', 'protobufjs'] as const) {
    // tag 1/varint 300, int64 -1 (ten bytes), fixed32, double 1.5, string "hé", bytes [9]
    const r = new WireReader(
      bytes(
        0x08,
        0xac,
        0x02,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0x01,
        0x78,
        0x56,
        0x34,
        0x12,
        0,
        0,
        0,
        0,
        0,
        0,
        0xf8,
        0x3f,
        3,
        0x68,
        0xc3,
        0xa9,
        1,
        9,
      ),
      0,
      undefined,
      dialect,
    );
    t.equal(r.uint32(), 0x08, `${dialect}: one-byte tag`);
    t.equal(r.uint32(), 300);
    const atMinusOne = r.pos;
    t.equal(r.int64(), -1);
    r.pos = atMinusOne;
    t.equal(r.int64BigInt(), -1n);
    t.equal(r.fixed32(), 0x12345678);
    t.equal(r.double(), 1.5);
    t.equal(r.string(), 'hé');
    t.same([...r.bytes()], [9]);
    t.ok(r.done);
  }
});

t.test('the strict dialect refuses what Go refuses, with one error class', async (t) => {
  const strict = (...b: number[]) => new WireReader(bytes(...b));
  t.throws(() => strict(0x00).tag(), new WireError('illegal field number 0 at offset 0'));
  t.throws(() => strict(0x0b).tag(), new WireError('unsupported wire type 3 at offset 0'));
  t.throws(() => strict(0x80).uint32(), new WireError('truncated varint at offset 1'));
  t.throws(() => strict(0x80, 0x80, 0x80, 0x80, 0x10).uint32(), new WireError('varint too large at offset 5'));
  t.throws(() => strict(5, 1).string(), new WireError('length 5 at offset 1 runs past the end'));
  t.throws(() => strict(1, 0xff).string('label name'), new WireError('label name is not valid UTF-8'));
  t.throws(
    () => strict().expect(0x08, WireType.LengthDelimited, 'Label'),
    new WireError('Label field 1 has wire type 0, expected 2'),
  );
  let caught: unknown;
  try {
    strict(0x80).uint32();
  } catch (err) {
    caught = err;
  }
  t.ok(caught instanceof WireError, 'bounds errors are WireErrors');
  t.throws(() => strict().skip(WireType.StartGroup), new WireError('unsupported wire type 3'));
});

t.test("the protobufjs dialect accepts and words errors as protobufjs' reader", async (t) => {
  const lenient = (...b: number[]) => new WireReader(bytes(...b), 0, b.length, 'protobufjs');
  t.equal(lenient(0x80, 0x80, 0x80, 0x80, 0x10).uint32(), 0, 'a wide uint32 keeps its low 32 bits');
  t.equal(lenient(1, 0xff).string(), '\ufffd', 'invalid UTF-8 is replaced');
  const group = lenient(0x08, 0x01, 0x0c, 0x2a);
  group.skip(WireType.StartGroup);
  t.equal(group.pos, 3, 'a group is skipped up to its end tag');
  t.throws(() => lenient(0x80).uint32(), new WireError('index out of range: 1 + 1 > 1'));
  t.throws(() => lenient(5, 1).string(), new WireError('index out of range: 1 + 5 > 2'));
  t.throws(() => lenient(1, 2).fixed64(), new WireError('index out of range: 0 + 8 > 2'));
  t.throws(() => lenient().skip(7), new WireError('invalid wire type 7 at offset 0'));
  t.throws(() => lenient(...new Array(10).fill(0x80)).uint32(), new WireError('invalid varint encoding'));
});
