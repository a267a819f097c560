/** The line-protocol scanner: grammar, value types, escapes, line handling, errors and its caches. */
import t from 'tap';
import { parsePrecision } from '../../../../src/router/http/params.js';
import { DbError, ErrorCode } from '../../../../src/shared/errors.js';
import {
  type FieldValue,
  LineCaches,
  type LinePoint,
  parseLineProtocol,
} from '../../../../src/shared/ingest/lineproto/parser.js';

/** One cache for the whole file, as a decoding thread keeps one across requests. */
const caches = new LineCaches();

const parse = (text: string, precision = parsePrecision(undefined), maxLineBytes?: number): LinePoint[] =>
  parseLineProtocol(Buffer.from(text, 'utf8'), precision, caches, maxLineBytes).points;

/** A point as plain maps, for readable expectations. */
function plain(p: LinePoint) {
  const tags: Record<string, string> = {};
  p.tagKeys.forEach((k, i) => {
    tags[k] = p.tagValues[i] as string;
  });
  const fields: Record<string, [string, FieldValue]> = {};
  p.fieldKeys.forEach((k, i) => {
    fields[k] = [p.fieldKinds[i] as string, p.fieldValues[i] as FieldValue];
  });
  return { measurement: p.measurement, tags, fields, timestamp: p.timestamp, line: p.line };
}

const one = (text: string) => {
  const points = parse(text);
  if (points.length !== 1) throw new Error(`expected one point, got ${points.length}`);
  return plain(points[0] as LinePoint);
};

/** The InvalidArgument message a bad body produces. */
function errorOf(text: string, precision = parsePrecision(undefined), maxLineBytes?: number): string {
  try {
    parse(text, precision, maxLineBytes);
  } catch (err) {
    if (err instanceof DbError && err.code === ErrorCode.InvalidArguments) return err.message;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

t.test('parsePrecision', async (t) => {
  t.test('defaults to nanoseconds and accepts every GreptimeDB spelling', async (t) => {
    t.equal(parsePrecision(undefined), 'ns');
    const spellings: Array<[string, string]> = [
      ['n', 'ns'],
      ['ns', 'ns'],
      ['u', 'us'],
      ['us', 'us'],
      ['µ', 'us'],
      ['ms', 'ms'],
      ['s', 's'],
      ['m', 'm'],
      ['h', 'h'],
    ];
    for (const [input, unit] of spellings) t.equal(parsePrecision(input), unit, input);
  });

  t.test('rejects anything else with the GreptimeDB message', async (t) => {
    for (const bad of ['x', 'NS', 'sec', '', 'µs']) {
      t.throws(() => parsePrecision(bad), {
        code: ErrorCode.InvalidArguments,
        message: `Failed to convert time precision, name: ${bad}`,
      });
    }
  });
});

t.test('parses measurement, tags, fields and the raw timestamp', async (t) => {
  t.same(one('cpu,host=a,dc=x usage=0.5,n=3i,ok=true 1700000000000'), {
    measurement: 'cpu',
    tags: { host: 'a', dc: 'x' },
    fields: { usage: ['float', 0.5], n: ['integer', 3n], ok: ['boolean', true] },
    timestamp: 1700000000000n,
    line: 1,
  });
});

t.test('a line without timestamp has a null timestamp', async (t) => {
  t.equal(one('cpu v=1').timestamp, null);
  t.equal(one('cpu v=1   ').timestamp, null, 'trailing spaces after the fields');
});

t.test('an empty body or one with only blank lines and comments has no points', async (t) => {
  t.same(parse(''), []);
  t.same(parse('\n\n  \n\t\n'), []);
  t.same(parse('# a\n   # b "quoted" x=1\n'), []);
});

t.test('field values', async (t) => {
  t.test('bare numbers are floats, with the exact double of their decimal text', async (t) => {
    const texts = [
      '0',
      '-0',
      '1',
      '-42',
      '58.1',
      '0.1',
      '123456789012345',
      '1234567.12345678',
      '3.14159265358979323846',
    ];
    texts.push('1e3', '-1.5E-3', '2.5e+2', '1.7976931348623157e308', '5e-324', '00012.50', '9007199254740993');
    for (const text of texts) {
      const [kind, value] = one(`m v=${text}`).fields.v as [string, number];
      t.equal(kind, 'float', text);
      t.ok(Object.is(value, Number(text)), `${text} → ${value}`);
    }
  });

  t.test('random decimals take the fast path without losing exactness', async (t) => {
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    const lines: string[] = [];
    const expected: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const digits = 1 + Math.floor(random() * 15);
      let text = '';
      for (let d = 0; d < digits; d++) text += Math.floor(random() * 10);
      const dot = Math.floor(random() * digits);
      if (dot > 0) text = `${text.slice(0, dot)}.${text.slice(dot)}`;
      if (random() < 0.3) text = `-${text}`;
      lines.push(`m v=${text} ${i}`);
      expected.push(Number(text));
    }
    const points = parse(lines.join('\n'));
    const mismatches = points.filter((p, i) => !Object.is(p.fieldValues[0], expected[i]));
    t.equal(mismatches.length, 0);
  });

  t.test('rejects malformed numbers', async (t) => {
    for (const text of ['.5', '1.', '+1', '1e', '1e+', '--1', '1.2.3', '0x10', 'NaN', 'Inf', '1_000']) {
      t.match(errorOf(`m v=${text}`), /^Failed to parse InfluxDB line protocol: line 1: /, text);
    }
  });

  t.test('rejects floats that overflow a double', async (t) => {
    t.match(errorOf('m v=1e400'), /out of range/);
  });

  t.test('i and u suffixes make exact 64-bit integers, range-checked', async (t) => {
    t.same(one('m a=-9223372036854775808i,b=9223372036854775807i,c=0i,d=007i').fields, {
      a: ['integer', -9223372036854775808n],
      b: ['integer', 9223372036854775807n],
      c: ['integer', 0n],
      d: ['integer', 7n],
    });
    t.same(one('m a=18446744073709551615u,b=0u').fields, {
      a: ['uinteger', 18446744073709551615n],
      b: ['uinteger', 0n],
    });
    t.match(errorOf('m v=9223372036854775808i'), /integer value '9223372036854775808i' out of range/);
    t.match(errorOf('m v=-9223372036854775809i'), /out of range/);
    t.match(errorOf('m v=18446744073709551616u'), /out of range/);
    t.match(errorOf('m v=-1u'), /negative unsigned integer/);
    t.match(errorOf('m v=1.5i'), /Unable to parse integer value '1\.5i'/);
    t.match(errorOf('m v=i'), /Unable to parse integer value/);
    t.match(errorOf('m v=1e3i'), /Unable to parse integer value/);
  });

  t.test('booleans accept exactly t T true True TRUE f F false False FALSE', async (t) => {
    const words = ['t', 'T', 'true', 'True', 'TRUE', 'f', 'F', 'false', 'False', 'FALSE'];
    const fields = one(`m ${words.map((w, i) => `k${i}=${w}`).join(',')}`).fields;
    words.forEach((w, i) => {
      t.same(fields[`k${i}`], ['boolean', i < 5], w);
    });
    for (const bad of ['tRUE', 'yes', 'tr', 'FALSe', 'truee']) t.match(errorOf(`m v=${bad}`), /line 1: /, bad);
  });

  t.test('strings: only \\" and \\\\ are escapes, separators need none, newlines are kept', async (t) => {
    t.same(one('m s="a, b=c d",e="",q="say \\"hi\\"",b="x\\\\y",o="tab\\there",u="温度 🌡"').fields, {
      s: ['string', 'a, b=c d'],
      e: ['string', ''],
      q: ['string', 'say "hi"'],
      b: ['string', 'x\\y'],
      o: ['string', 'tab\\there'],
      u: ['string', '温度 🌡'],
    });
    t.same(one('m s="line 1\nline 2\r\nline 3" 5').fields.s, ['string', 'line 1\nline 2\r\nline 3']);
    t.same(one('m s="# not a comment" 5').fields.s, ['string', '# not a comment']);
  });

  t.test('a string must be closed and be followed by a separator', async (t) => {
    t.match(errorOf('m s="abc 0'), /unterminated string/);
    t.match(errorOf('m s="ab\\" 0'), /unterminated string/);
    t.match(errorOf('m s="ab"c 0'), /unexpected text after the field set/);
  });

  t.test('an unquoted word is not a string', async (t) => {
    t.match(errorOf('m a=hello 0'), /strings must be double-quoted/);
  });
});

t.test('escapes', async (t) => {
  t.test('measurement: comma and space are escapable, equals signs and quotes are plain', async (t) => {
    t.equal(one('my\\ cpu\\,x v=1').measurement, 'my cpu,x');
    t.equal(one('a=b v=1').measurement, 'a=b');
    t.equal(one('a\\=b v=1').measurement, 'a\\=b', 'an escaped = stays two characters');
    t.equal(one('"q" v=1').measurement, '"q"');
    t.equal(one('a\\\\b v=1').measurement, 'a\\b');
  });

  t.test('tag keys, tag values and field keys unescape comma, equals sign and space', async (t) => {
    t.same(one('cpu,ho\\=st=a\\,b\\ c,r\\ k=v\\=w f\\,1\\=x\\ y=1'), {
      measurement: 'cpu',
      tags: { 'ho=st': 'a,b c', 'r k': 'v=w' },
      fields: { 'f,1=x y': ['float', 1] },
      timestamp: null,
      line: 1,
    });
  });

  t.test('an unescaped equals sign inside a tag value is part of the value', async (t) => {
    t.same(one('cpu,k=a=b v=1').tags, { k: 'a=b' });
  });

  t.test('any other backslash sequence is kept as written', async (t) => {
    t.same(one('c\\pu,k\\x=v\\t f\\n=1').measurement, 'c\\pu');
    t.same(one('c\\pu,k\\x=v\\t f\\n=1').tags, { 'k\\x': 'v\\t' });
    t.same(Object.keys(one('c\\pu,k\\x=v\\t f\\n=1').fields), ['f\\n']);
  });

  t.test('a name ending in a single backslash is rejected; an escaped backslash is fine', async (t) => {
    t.match(errorOf('cpu\\'), /may not end with a backslash/);
    t.match(errorOf('cpu,k=v\\\ncpu v=1'), /line 1: .*may not end with a backslash/);
    t.same(one('cpu,k=v\\\\ f=1').tags, { k: 'v\\' });
  });

  t.test('an escaped space keeps what follows inside the name', async (t) => {
    t.match(errorOf('cpu,host=a\\ value=1 0'), /line 1: field '0' has no '='/);
  });
});

t.test('structure errors name their line', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['cpu', /line 1: no field set/],
    ['cpu ', /line 1: no field set/],
    ['cpu,host=a', /line 1: no field set/],
    ['cpu,host=a 1', /line 1: field '1' has no '='/],
    [',host=a v=1', /line 1: empty measurement name/],
    ['cpu, v=1', /line 1: empty tag key/],
    ['cpu,=a v=1', /line 1: empty tag key/],
    ['cpu,host v=1', /line 1: tag key 'host' has no '='/],
    ['cpu,host= v=1', /line 1: empty tag value/],
    ['cpu,host=a, v=1', /line 1: empty tag key/],
    ['cpu value= 0', /line 1: empty field value/],
    ['cpu value=1, 0', /line 1: empty field after ','/],
    ['cpu =1 0', /line 1: empty field key/],
    ['cpu a,b=1 0', /line 1: field 'a' has no '='/],
    ['cpu v=1 1.5', /line 1: Unable to parse timestamp value '1\.5'/],
    ['cpu v=1 12a', /line 1: Unable to parse timestamp value/],
    ['cpu v=1 -', /line 1: Unable to parse timestamp value/],
    ['cpu v=1 1 2', /line 1: unexpected text after the timestamp: '2'/],
    ['cpu v=1 1 # note', /line 1: unexpected text after the timestamp/],
    ['cpu v=1\t1', /line 1: /],
    ['cpu\tv=1', /line 1: no field set/],
  ];
  for (const [text, re] of cases) t.match(errorOf(text), re, JSON.stringify(text));
});

t.test('one bad line rejects the whole body, naming the first bad line', async (t) => {
  t.equal(
    errorOf('cpu v=1 1\ncpu v= 2\ncpu v=3 3\ncpu\n'),
    "Failed to parse InfluxDB line protocol: line 2: empty field value for field key 'v'",
  );
});

t.test('lines', async (t) => {
  t.test('CRLF endings, blank lines, leading and trailing spaces are accepted', async (t) => {
    const points = parse('\r\n  cpu v=1 1  \r\n\r\n\tcpu v=2 2\r\n   # c\r\ncpu v=3\r\n');
    t.same(
      points.map((p) => [p.fieldValues[0], p.timestamp, p.line]),
      [
        [1, 1n, 2],
        [2, 2n, 4],
        [3, null, 6],
      ],
    );
  });

  t.test('a lone carriage return is not a line ending', async (t) => {
    t.match(errorOf('cpu v=1 1\rcpu v=2 2'), /line 1: /);
  });

  t.test('a # starts a comment only as the first non-blank character of a line', async (t) => {
    t.equal(one('#x\ncpu#1 v=1').measurement, 'cpu#1');
  });

  t.test('line numbers count the lines inside multi-line strings', async (t) => {
    const body = 'm s="a\nb\nc" 1\n\nm v=1 2\nm v= 3';
    t.same(
      parse(body.split('\n').slice(0, 5).join('\n')).map((p) => p.line),
      [1, 5],
    );
    t.match(errorOf(body), /line 6: /);
    t.match(errorOf('m v=1\nm s="open\nstill open'), /line 2: unterminated string/);
  });

  t.test('negative and large timestamps are exact', async (t) => {
    t.same(
      parse('m v=1 -1000\nm v=1 9223372036854775807\nm v=1 -9223372036854775808\nm v=1 0').map((p) => p.timestamp),
      [-1000n, 9223372036854775807n, -9223372036854775808n, 0n],
    );
    t.match(errorOf('m v=1 9223372036854775808'), /out of the int64 range/);
    t.match(errorOf('m v=1 -9223372036854775809'), /out of the int64 range/);
  });

  t.test('repeated timestamps are parsed once and still equal', async (t) => {
    const points = parse('m v=1 1451606400000000000\nm v=2 1451606400000000000\nm v=3 1451606400000000001');
    t.same(
      points.map((p) => p.timestamp),
      [1451606400000000000n, 1451606400000000000n, 1451606400000000001n],
    );
  });
});

t.test('duplicate keys keep one entry with the last value', async (t) => {
  t.same(one('cpu,h=a,d=x,h=b v=1,w=2,v=3i 7'), {
    measurement: 'cpu',
    tags: { h: 'b', d: 'x' },
    fields: { v: ['integer', 3n], w: ['float', 2] },
    timestamp: 7n,
    line: 1,
  });
  const points = parse('cpu,h=a v=1,v=2\ncpu,h=a v=1,v=2');
  t.same(
    points.map((p) => [p.fieldKeys.length, p.fieldValues]),
    [
      [1, [2]],
      [1, [2]],
    ],
  );
});

t.test('many keys on one line stay unique (map-backed duplicate check)', async (t) => {
  const tags = Array.from({ length: 40 }, (_, i) => `t${i}=v${i}`);
  const fields = Array.from({ length: 40 }, (_, i) => `f${i}=${i}i`);
  const p = one(`m,${tags.join(',')},t3=last ${fields.join(',')},f39=1.5 1`);
  t.equal(Object.keys(p.tags).length, 40);
  t.equal(p.tags.t3, 'last');
  t.equal(Object.keys(p.fields).length, 40);
  t.same(p.fields.f39, ['float', 1.5]);
});

t.test('precision m or h requires a timestamp on every line', async (t) => {
  t.equal(parse('m v=1 5', 'm')[0]?.timestamp, 5n);
  t.match(errorOf('m v=1 5\nm v=2', 'h'), /line 2: a timestamp is required with precision m or h/);
  t.equal(parse('m v=1', 's')[0]?.timestamp, null);
});

t.test('the line length limit rejects longer points and comments', async (t) => {
  t.equal(parse('m v=1 1', 'ns', 7).length, 1, 'exactly at the limit');
  t.equal(
    errorOf('m v=1 1\nm v=10 1', 'ns', 7),
    'Failed to parse InfluxDB line protocol: line 2: line exceeds 7 bytes (ingest.line_max_bytes)',
  );
  t.match(errorOf('# a long comment\nm v=1', 'ns', 8), /line 1: line exceeds 8 bytes/);
  t.match(errorOf(`m s="${'x'.repeat(100)}"`, 'ns', 50), /line 1: line exceeds 50 bytes/);
  t.equal(parse(`m s="${'x'.repeat(100_000)}"`).length, 1, 'the default limit is 1 MiB');
  t.match(errorOf(`m s="${'x'.repeat(1024 * 1024)}"`), /line exceeds 1048576 bytes/);
});

t.test('caches never leak one series or field set into another', async (t) => {
  t.test('series that differ in one byte keep their own tags', async (t) => {
    const lines: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let h = 0; h < 50; h++) lines.push(`cpu,host=h${h},rack=${h % 7} v=${h} ${round}`);
    }
    const points = parse(lines.join('\n'));
    points.forEach((p, i) => {
      const h = i % 50;
      if (p.tagValues[0] !== `h${h}` || p.tagValues[1] !== String(h % 7) || p.fieldValues[0] !== h) {
        t.fail(`point ${i} is wrong: ${JSON.stringify(plain(p), (_, v) => (typeof v === 'bigint' ? `${v}` : v))}`);
      }
    });
    t.pass('every point has its own tags and values');
  });

  t.test('a series whose fields change from line to line gets the right keys and kinds', async (t) => {
    const body = [
      'cpu,h=a x=1,y=2',
      'cpu,h=a x=1,z=2',
      'cpu,h=a x=1',
      'cpu,h=a x=1,y=2,w=3',
      'cpu,h=a x=1i,y=2,w=3',
      'cpu,h=a xy=1,y=2,w=3',
      'cpu,h=a x\\=y=1',
      'cpu,h=a x=1,x=2',
      'cpu,h=a x=1,y=2',
      'cpu,h=b x=1,y=2',
    ].join('\n');
    t.same(
      parse(body).map((p) => [p.tagValues[0], p.fieldKeys.join('|'), p.fieldKinds.join('|')]),
      [
        ['a', 'x|y', 'float|float'],
        ['a', 'x|z', 'float|float'],
        ['a', 'x', 'float'],
        ['a', 'x|y|w', 'float|float|float'],
        ['a', 'x|y|w', 'integer|float|float'],
        ['a', 'xy|y|w', 'float|float|float'],
        ['a', 'x=y', 'float'],
        ['a', 'x', 'float'],
        ['a', 'x|y', 'float|float'],
        ['b', 'x|y', 'float|float'],
      ],
    );
  });

  t.test('a failed body does not poison the next one', async (t) => {
    t.match(errorOf('cpu,h=a x=1,y=2 1\ncpu,h=a x=1,y=2 z'), /line 2/);
    t.same(one('cpu,h=a x=1,y=2 1').fields, { x: ['float', 1], y: ['float', 2] });
  });

  t.test('generated points survive a write-then-parse round trip', async (t) => {
    let seed = 99;
    const random = () => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed / 2 ** 32;
    };
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const names = ['a', 'b', 'host', 'x y', 'k,1', 'e=q', 'back\\slash', 'ü', '"q"', 'tab\there'];
    const escapeName = (s: string, equals: boolean) =>
      s.replace(/[\\, ]/g, (c) => `\\${c}`).replace(/=/g, (c) => (equals ? `\\${c}` : c));
    const expected: Array<ReturnType<typeof plain>> = [];
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const measurement = pick(['cpu', 'mem', 'my cpu', 'd,isk']);
      const tags: Record<string, string> = {};
      for (let k = Math.floor(random() * 4); k > 0; k--) tags[pick(names)] = pick(names);
      const fields: Record<string, [string, FieldValue]> = {};
      for (let k = 1 + Math.floor(random() * 4); k > 0; k--) {
        const kind = pick(['float', 'integer', 'uinteger', 'string', 'boolean']);
        const value: FieldValue =
          kind === 'float'
            ? Math.round(random() * 1e6) / 100
            : kind === 'integer'
              ? BigInt(Math.floor(random() * 2e6) - 1e6)
              : kind === 'uinteger'
                ? BigInt(Math.floor(random() * 1e6))
                : kind === 'string'
                  ? pick(['', 'plain', 'say "hi"', 'a\\b', 'multi\nline', 'x, y=z'])
                  : random() < 0.5;
        fields[pick(names)] = [kind, value];
      }
      const timestamp = random() < 0.2 ? null : BigInt(Math.floor(random() * 1e6)) * 1_000_000_000n;
      const tagText = Object.entries(tags)
        .map(([k, v]) => `,${escapeName(k, true)}=${escapeName(v, true)}`)
        .join('');
      const fieldText = Object.entries(fields)
        .map(([k, [kind, v]]) => {
          const value =
            kind === 'float'
              ? String(v)
              : kind === 'integer'
                ? `${v}i`
                : kind === 'uinteger'
                  ? `${v}u`
                  : kind === 'string'
                    ? `"${String(v).replace(/["\\]/g, (c) => `\\${c}`)}"`
                    : String(v);
          return `${escapeName(k, true)}=${value}`;
        })
        .join(',');
      const line = lines.length === 0 ? 1 : lines.join('\n').split('\n').length + 1;
      lines.push(
        `${escapeName(measurement, false)}${tagText} ${fieldText}${timestamp === null ? '' : ` ${timestamp}`}`,
      );
      expected.push({ measurement, tags, fields, timestamp, line });
    }
    const body = lines.join('\n');
    t.same(parse(body).map(plain), expected, 'parsed as one body');
    t.same(parse(body).map(plain), expected, 'parsed again with warm caches');
  });
});
