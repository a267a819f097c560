/**
 * An OTLP metrics body decoded and turned into inserts where the ingest decoders run (a shard,
 * src/shared/ingest/decode.ts): protobuf or OTLP/JSON → `ExportMetricsServiceRequest` → the
 * remote-write table layout plus the metadata rows. The router only queues what comes back.
 */
import type { TableInsert } from '../../insert.js';
import { decodeOtlp, type ExportMetricsServiceRequest, OtlpTypes } from '../../proto/otlp.js';
import { metadataInsert } from '../prom-remote/metadata.js';
import type { TableLookup } from '../prom-remote/to-inserts.js';
import { decodeOtlpJson } from './json.js';
import { OtlpMalformed } from './malformed.js';
import type { OtlpMetricsOptions } from './metrics-options.js';
import { otlpMetricsToInserts } from './metrics-to-inserts.js';

export type OtlpEncoding = 'protobuf' | 'json';

export interface OtlpMetricsDecoded {
  inserts: TableInsert[];
  /** Sample rows (what the protocol counts as written). */
  rows: number;
  /** Points refused one by one (`partial_success`), and why. */
  rejected: number;
  message: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Throws OtlpMalformed, with the reason, for a body that is not a metrics export request. */
export function decodeOtlpMetricsRequest(encoding: OtlpEncoding, body: Uint8Array): ExportMetricsServiceRequest {
  try {
    if (encoding === 'protobuf') return decodeOtlp<ExportMetricsServiceRequest>(OtlpTypes.exportMetricsRequest, body);
    return decodeOtlpJson<ExportMetricsServiceRequest>(OtlpTypes.exportMetricsRequest, utf8.decode(body));
  } catch (err) {
    const what = encoding === 'protobuf' ? 'protobuf' : 'JSON';
    throw new OtlpMalformed(`Failed to decode OTLP metrics request (${what}): ${(err as Error).message}`);
  }
}

export function decodeOtlpMetrics(
  body: Uint8Array,
  encoding: OtlpEncoding,
  db: string,
  options: OtlpMetricsOptions,
  lookup: TableLookup,
): OtlpMetricsDecoded {
  const conversion = otlpMetricsToInserts(decodeOtlpMetricsRequest(encoding, body), db, options, lookup);
  const metadata = metadataInsert(conversion.metadata, db);
  const inserts = metadata ? [...conversion.inserts, metadata] : conversion.inserts;
  return {
    inserts,
    rows: conversion.sampleRows,
    rejected: conversion.rejectedPoints,
    message: conversion.rejectionMessage,
  };
}
