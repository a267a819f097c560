/**
 * The Prometheus remote write / remote read protobuf schema (package `prometheus`, proto3), as
 * `.proto` text inside a TS module so that it ships in dist/ with the code. Field numbers are the
 * wire contract: they follow Prometheus' `prompb/types.proto` and `prompb/remote.proto` (reference
 * ingest §2.2, admin §7.5). Field names are kept in snake case so they read like the `.proto`.
 *
 * The hot write path does not go through these types: `write-decode.ts` walks the wire format
 * directly so it can build column arrays without an object per sample. The types here decode
 * remote read requests, encode read responses and build requests in tests.
 */
import { lazyTypes } from './protobufjs.js';

export const PROMETHEUS_PROTO = `
syntax = "proto3";
package prometheus;

message WriteRequest {
  repeated TimeSeries timeseries = 1;
  reserved 2;
  repeated MetricMetadata metadata = 3;
}

message MetricMetadata {
  enum MetricType {
    UNKNOWN = 0;
    COUNTER = 1;
    GAUGE = 2;
    HISTOGRAM = 3;
    GAUGEHISTOGRAM = 4;
    SUMMARY = 5;
    INFO = 6;
    STATESET = 7;
  }
  MetricType type = 1;
  string metric_family_name = 2;
  string help = 4;
  string unit = 5;
}

message Sample {
  double value = 1;
  int64 timestamp = 2;
}

message Exemplar {
  repeated Label labels = 1;
  double value = 2;
  int64 timestamp = 3;
}

message Histogram {
  enum ResetHint {
    UNKNOWN = 0;
    YES = 1;
    NO = 2;
    GAUGE = 3;
  }
  oneof count {
    uint64 count_int = 1;
    double count_float = 2;
  }
  double sum = 3;
  sint32 schema = 4;
  double zero_threshold = 5;
  oneof zero_count {
    uint64 zero_count_int = 6;
    double zero_count_float = 7;
  }
  repeated BucketSpan negative_spans = 8;
  repeated sint64 negative_deltas = 9;
  repeated double negative_counts = 10;
  repeated BucketSpan positive_spans = 11;
  repeated sint64 positive_deltas = 12;
  repeated double positive_counts = 13;
  ResetHint reset_hint = 14;
  int64 timestamp = 15;
  repeated double custom_values = 16;
}

message BucketSpan {
  sint32 offset = 1;
  uint32 length = 2;
}

message TimeSeries {
  repeated Label labels = 1;
  repeated Sample samples = 2;
  repeated Exemplar exemplars = 3;
  repeated Histogram histograms = 4;
}

message Label {
  string name = 1;
  string value = 2;
}

message LabelMatcher {
  enum Type {
    EQ = 0;
    NEQ = 1;
    RE = 2;
    NRE = 3;
  }
  Type type = 1;
  string name = 2;
  string value = 3;
}

message ReadHints {
  int64 step_ms = 1;
  string func = 2;
  int64 start_ms = 3;
  int64 end_ms = 4;
  repeated string grouping = 5;
  bool by = 6;
  int64 range_ms = 7;
}

message Chunk {
  enum Encoding {
    UNKNOWN = 0;
    XOR = 1;
    HISTOGRAM = 2;
    FLOAT_HISTOGRAM = 3;
  }
  int64 min_time_ms = 1;
  int64 max_time_ms = 2;
  Encoding type = 3;
  bytes data = 4;
}

message ChunkedSeries {
  repeated Label labels = 1;
  repeated Chunk chunks = 2;
}

message ReadRequest {
  enum ResponseType {
    SAMPLES = 0;
    STREAMED_XOR_CHUNKS = 1;
  }
  repeated Query queries = 1;
  repeated ResponseType accepted_response_types = 2;
}

message ReadResponse {
  repeated QueryResult results = 1;
}

message Query {
  int64 start_timestamp_ms = 1;
  int64 end_timestamp_ms = 2;
  repeated LabelMatcher matchers = 3;
  ReadHints hints = 4;
}

message QueryResult {
  repeated TimeSeries timeseries = 1;
}

message ChunkedReadResponse {
  repeated ChunkedSeries chunked_series = 1;
  int64 query_index = 2;
}
`;

/** `ReadRequest.ResponseType` values. */
export const ResponseType = { SAMPLES: 0, STREAMED_XOR_CHUNKS: 1 } as const;

/** `LabelMatcher.Type` values. */
export const MatcherType = { EQ: 0, NEQ: 1, RE: 2, NRE: 3 } as const;

/** `Chunk.Encoding` values (prompb/types.proto). */
export const CHUNK_ENCODING_XOR = 1;
export const CHUNK_ENCODING_HISTOGRAM = 2;
export const CHUNK_ENCODING_FLOAT_HISTOGRAM = 3;

/** Content type of a streamed (chunked) remote read response, as Prometheus' server writes it. */
export const STREAMED_CONTENT_TYPE = 'application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse';

/**
 * Remote write 2.0 (`io.prometheus.write.v2`, Prometheus' `prompb/io/prometheus/write/v2/types.proto`):
 * labels as references into a symbol table. Its Sample, Histogram and BucketSpan are 1.0's field for
 * field, so it names them instead of carrying a second copy. The server decodes it by hand
 * (`write-decode-v2.ts`); the type builds requests in tests.
 */
export const PROMETHEUS_WRITE_V2_PROTO = `
syntax = "proto3";
package io.prometheus.write.v2;

message Request {
  reserved 1 to 3;
  repeated string symbols = 4;
  repeated TimeSeries timeseries = 5;
}

message TimeSeries {
  repeated uint32 labels_refs = 1;
  repeated .prometheus.Sample samples = 2;
  repeated .prometheus.Histogram histograms = 3;
  repeated Exemplar exemplars = 4;
  Metadata metadata = 5;
  int64 created_timestamp = 6;
}

message Exemplar {
  repeated uint32 labels_refs = 1;
  double value = 2;
  int64 timestamp = 3;
}

message Metadata {
  .prometheus.MetricMetadata.MetricType type = 1;
  uint32 help_ref = 3;
  uint32 unit_ref = 4;
}
`;

/** The message types of the schema, parsed when one is first used. */
export const prometheusTypes = lazyTypes(
  (protobuf) => {
    const root = protobuf.parse(PROMETHEUS_PROTO, { keepCase: true }).root;
    protobuf.parse(PROMETHEUS_WRITE_V2_PROTO, root, { keepCase: true });
    return root;
  },
  {
    WriteRequest: 'prometheus.WriteRequest',
    ReadRequest: 'prometheus.ReadRequest',
    ReadResponse: 'prometheus.ReadResponse',
    ChunkedReadResponse: 'prometheus.ChunkedReadResponse',
    TimeSeries: 'prometheus.TimeSeries',
    ChunkedSeries: 'prometheus.ChunkedSeries',
    Histogram: 'prometheus.Histogram',
    WriteRequestV2: 'io.prometheus.write.v2.Request',
  },
);

/** Turns a decoded int64 (a `Long` when the `long` package is present, else a number) into a number. */
export function int64ToNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value && typeof value === 'object' && 'toNumber' in value) return (value as { toNumber(): number }).toNumber();
  return Number(value ?? 0);
}
