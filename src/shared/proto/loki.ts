/**
 * Loki's push protobuf (package `logproto`, proto3) as `.proto` text inside a TS module, so it ships
 * in dist/ with the code. Field numbers are the wire contract and follow grafana/loki
 * `pkg/push/push.proto` (reference ingest §4). Loki imports `google.protobuf.Timestamp`; the local
 * `Timestamp` here has the same two fields and numbers, so it is the same on the wire, and
 * protobufjs does not turn it into a `Date` (which would lose the nanoseconds).
 */
import { lazyTypes } from './protobufjs.js';

export const LOKI_PROTO = `
syntax = "proto3";
package logproto;

message PushRequest {
  repeated StreamAdapter streams = 1;
  string format = 2;
}

message StreamAdapter {
  string labels = 1;
  repeated EntryAdapter entries = 2;
  uint64 hash = 3;
}

message EntryAdapter {
  Timestamp timestamp = 1;
  string line = 2;
  repeated LabelPairAdapter structuredMetadata = 3;
  repeated LabelPairAdapter parsed = 4;
}

message LabelPairAdapter {
  string name = 1;
  string value = 2;
}

message Timestamp {
  int64 seconds = 1;
  int32 nanos = 2;
}
`;

/** The message types of the schema, parsed when one is first used. */
export const lokiTypes = lazyTypes((protobuf) => protobuf.parse(LOKI_PROTO, { keepCase: true }).root, {
  PushRequest: 'logproto.PushRequest',
});

/** A decoded `LabelPairAdapter`. */
export interface WireLabelPair {
  name: string;
  value: string;
}

/** A decoded `EntryAdapter`; `seconds` is a `Long` when the `long` package is present. */
export interface WireEntry {
  timestamp?: { seconds?: unknown; nanos?: number } | null;
  line: string;
  structuredMetadata: WireLabelPair[];
}

/** A decoded `StreamAdapter`. */
export interface WireStream {
  labels: string;
  entries: WireEntry[];
}
