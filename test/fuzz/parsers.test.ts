/**
 * In-process fuzzing of the parsers that read what clients send (issue 16): for random and
 * mutated inputs each either answers or throws its documented error (a DbError the HTTP layer
 * maps, or the parser's own error class its route turns into one) — never another exception, and
 * never a hang (each property runs a bounded number of cases; tap's timeout catches a loop). Inputs
 * mix raw bytes with tokens of the language, so the runs reach past the first character. Every
 * file under `test/fuzz/corpus/<parser>/` is replayed first: inputs that once broke a parser stay
 * here as regression cases.
 *
 * FUZZ_RUNS sets the cases per property (default 300; a longer local run: FUZZ_RUNS=20000).
 * FUZZ_SEED replays a failure fast-check reported.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { compilePipeline } from '../../src/pipeline/compile.js';
import { PipelineError } from '../../src/pipeline/processor.js';
import { parseExpr } from '../../src/query/promql/parse.js';
import { ParseError } from '../../src/query/promql/parse-error.js';
import { PromqlError } from '../../src/query/promql/types.js';
import { parseSql } from '../../src/query/sql/parse/parser.js';
import { ConfigError } from '../../src/shared/config-file.js';
import { loadConfig } from '../../src/shared/config-load.js';
import { DbError } from '../../src/shared/errors.js';
import { LineCaches, parseLineProtocol } from '../../src/shared/ingest/lineproto/parser.js';
import { decodePut } from '../../src/shared/ingest/opentsdb/decode-put.js';
import { decodeRemoteWrite } from '../../src/shared/ingest/prom-remote/decode-write.js';
import { SnappyError, snappyCompress, snappyDecompress } from '../../src/shared/ingest/prom-remote/snappy-block.js';
import { SchemaSnapshot } from '../../src/shared/ingest/schema-snapshot.js';
import { tempDir } from '../helpers/server.js';
import { asText, mutatedBytes, runTargets, type Target, tokenText } from './fuzz-kit.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const CORPUS = path.join(import.meta.dirname, 'corpus');

const isDbError = (err: unknown): boolean => err instanceof DbError;
const text = (s: string): Uint8Array => Buffer.from(s);

const schema = new SchemaSnapshot({ generation: 1, databases: [], tables: [] });
const lineCaches = new LineCaches();
const LP_SAMPLES = [
  'cpu,host=a,region=eu usage=1.5,idle=2i,ok=t,msg="hi \\"x\\"" 1700000000000000000',
  'm\\ x,t\\,a=b\\=c f=1u\nm2 f="a\\\\b" \n# comment\n\nm3 f=-1e300',
].map(text);
/** Protobuf by hand: a length-delimited field. */
function field(no: number, body: Uint8Array): Uint8Array {
  const len: number[] = [];
  for (let n = body.length; ; n >>>= 7) {
    if (n < 0x80) {
      len.push(n);
      break;
    }
    len.push((n & 0x7f) | 0x80);
  }
  return Uint8Array.from([(no << 3) | 2, ...len, ...body]);
}
const label = (name: string, value: string): Uint8Array =>
  field(1, Uint8Array.from([...field(1, text(name)), ...field(2, text(value))]));
/** A sample: value 1.0 (fixed64) and timestamp 1,700,000,000,000 (varint). */
const SAMPLE = Uint8Array.from([0x09, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x10, 0x80, 0xd0, 0x95, 0xff, 0xbc, 0x31]);
const RW_SAMPLE = snappyCompress(
  field(1, Uint8Array.from([...label('__name__', 'up'), ...label('job', 'j'), ...field(2, SAMPLE)])),
);
const TSDB_SAMPLES = [
  '[{"metric":"sys.cpu","timestamp":1700000000,"value":1.5,"tags":{"host":"a"}}]',
  '{"metric":"m","timestamp":1700000000000,"value":"2","tags":{"dc":"x","k":"v"}}',
].map(text);
const PIPELINE_SAMPLE = `processors:
  - dissect:
      fields: [message]
      patterns: ['%{ip} - - [%{ts}] "%{method} %{path}"']
  - date:
      fields: [ts]
      formats: ['%d/%b/%Y:%H:%M:%S %z']
transform:
  - fields: [ip, method]
    type: string
    index: inverted
  - field: ts
    type: time
    index: timestamp
`;

const configDir = tempDir('fuzz-config-');
let configFiles = 0;

const TARGETS: Target[] = [
  {
    name: 'line protocol',
    seeds: LP_SAMPLES,
    input: fc.oneof(
      mutatedBytes(LP_SAMPLES),
      tokenText([
        'cpu',
        ',',
        '=',
        ' ',
        'host',
        '1i',
        '2u',
        '1.5e3',
        't',
        'FALSE',
        '"s"',
        '\\ ',
        '\n',
        '#',
        '1700000000',
      ]).map(text),
    ),
    run: (input) => parseLineProtocol(Buffer.from(input), 'ns', lineCaches, 1024),
    expected: isDbError,
  },
  {
    name: 'remote write (snappy + protobuf)',
    seeds: [RW_SAMPLE],
    input: fc.oneof(
      mutatedBytes([RW_SAMPLE]),
      mutatedBytes([RW_SAMPLE]).map((b) => snappyCompress(b)),
      fc.uint8Array({ maxLength: 200 }).map((b) => snappyCompress(b)),
    ),
    run: (input) => decodeRemoteWrite(input, 'public', 1 << 20, schema, 2),
    expected: isDbError,
  },
  {
    name: 'snappy block (bounded output)',
    seeds: [snappyCompress(Buffer.from('abcabcabcabc'.repeat(20)))],
    input: mutatedBytes([
      snappyCompress(Buffer.from('abcabcabcabc'.repeat(20))),
      Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f),
    ]),
    run: (input) => {
      const out = snappyDecompress(input, 4096);
      if (out.length > 4096) throw new Error(`decompressed ${out.length} bytes past the 4096 limit`);
      return out;
    },
    expected: (err) => err instanceof SnappyError,
  },
  {
    name: 'OpenTSDB put',
    seeds: TSDB_SAMPLES,
    input: fc.oneof(
      mutatedBytes(TSDB_SAMPLES),
      tokenText([
        '{',
        '}',
        '[',
        ']',
        '"metric"',
        '"tags"',
        '"value"',
        '"timestamp"',
        ':',
        ',',
        '1e400',
        'null',
        '"x"',
      ]).map(text),
    ),
    run: (input) => decodePut(input, 'public', schema, 2),
    expected: isDbError,
  },
  {
    name: 'PromQL',
    seeds: [text('sum by (job) (rate(up{job="a"}[5m] offset 1m)) / on(job) topk(3, up)')],
    input: tokenText([
      'rate(',
      'sum by (job) (',
      ')',
      '[5m]',
      '[1h:1m]',
      'offset 5m',
      '@ 100',
      '{job="a"}',
      '{__name__=~"x.*"}',
      'up',
      ' + ',
      ' / on(job) ',
      'topk(3,',
      '1e3',
      'NaN',
      '-',
      'histogram_quantile(0.9,',
    ]).map(text),
    run: (input) => parseExpr(asText(input)),
    expected: (err) => err instanceof ParseError || err instanceof PromqlError || isDbError(err),
  },
  {
    name: 'SQL',
    seeds: [
      text(
        "SELECT host, avg(v) RANGE '5m' FROM t WHERE a = 1 ALIGN '1m' BY (host) ORDER BY host; TQL EVAL (0, 10, '5s') up",
      ),
    ],
    input: tokenText([
      'SELECT ',
      '* ',
      'FROM t ',
      'WHERE ',
      'a = 1 ',
      'GROUP BY ',
      'ORDER BY ',
      "RANGE '5m' ",
      "ALIGN '1m' ",
      'CREATE TABLE t (ts TIMESTAMP TIME INDEX, v DOUBLE) ',
      "TQL EVAL (0, 10, '5s') up ",
      '(',
      ')',
      ',',
      ';',
      "'str'",
      'count(*) ',
      'CAST(1 AS INT) ',
      "INTERVAL '1 day' ",
    ]).map(text),
    run: (input) => parseSql(asText(input)),
    expected: isDbError,
  },
  {
    name: 'pipeline YAML',
    seeds: [text(PIPELINE_SAMPLE)],
    input: fc.oneof(
      mutatedBytes([text(PIPELINE_SAMPLE)]),
      tokenText([
        'processors:',
        'transform:',
        '\n  - ',
        'dissect:',
        'fields: [a]',
        'type: string',
        'index: timestamp',
        ': ',
        '-',
      ]).map(text),
    ),
    run: (input) => compilePipeline(asText(input)),
    expected: (err) => err instanceof PipelineError,
  },
  {
    name: 'TOML config',
    seeds: [
      text(
        '[http]\naddr = "127.0.0.1:4000"\ntimeout = "30s"\n[storage]\nshards = 2\n[memtable]\nflush_size = "64MiB"\n',
      ),
    ],
    input: fc.oneof(
      mutatedBytes([
        text(
          '[http]\naddr = "127.0.0.1:4000"\ntimeout = "30s"\n[storage]\nshards = 2\n[memtable]\nflush_size = "64MiB"\n',
        ),
      ]),
      tokenText(['[http]', '[storage]', 'addr', ' = ', '"x"', '1', 'true', '\n', '[[a]]', '#']).map(text),
    ),
    run: (input) => {
      const file = path.join(configDir, `c${configFiles++}.toml`);
      fs.writeFileSync(file, input);
      try {
        return loadConfig(['--config', file], {}, () => {});
      } finally {
        fs.rmSync(file, { force: true });
      }
    },
    expected: (err) => err instanceof ConfigError,
  },
];

runTargets(TARGETS, { runs: RUNS, seed: SEED, corpus: CORPUS });
