/**
 * A direct protobuf decoder for `ExportLogsServiceRequest`, the hot path of log ingestion. It
 * produces exactly the decoded shape of `shared/proto/otlp.ts` (the same objects `decodeOtlp` gives, checked
 * by test/router/ingest/otlp/logs-wire-decode.test.ts) without protobufjs' intermediate message objects
 * and `Long`s, which cost about half of the router's time and most of its garbage at a few
 * thousand records per request.
 *
 * Field numbers are those of `shared/proto/otlp.ts` (opentelemetry-proto logs.proto, common.proto,
 * resource.proto). Unknown fields are skipped as protobuf requires; a known field with the wrong
 * wire type, a length past the end or an unterminated varint is an error. The wire primitives are
 * the shared reader's (shared/proto/wire.ts), in its protobufjs dialect.
 */

import type {
  AnyValue,
  ExportLogsServiceRequest,
  InstrumentationScope,
  KeyValue,
  LogRecord,
  Resource,
  ResourceLogs,
  ScopeLogs,
} from '../../../shared/proto/otlp.js';
import { WireError, WireReader, WireType } from '../../../shared/proto/wire.js';

const { Varint: VARINT, Fixed64: FIXED64, LengthDelimited: LENGTH_DELIMITED, Fixed32: FIXED32 } = WireType;

/** Nesting allowed for AnyValue arrays and lists, as protobufjs' recursion limit does. */
const NESTING_DEPTH_MAX = 100;

/** A known field with the wrong wire type, worded as protobufjs words it. */
function expect(wireType: number, expected: number, field: string): void {
  if (wireType !== expected) throw new WireError(`invalid wire type ${wireType} for ${field}`);
}

/** Decodes an ExportLogsServiceRequest; throws on malformed input like `decodeOtlp` does. */
export function decodeLogsRequest(body: Uint8Array): ExportLogsServiceRequest {
  // The protobufjs dialect: what this decoder accepts, refuses and says is what decodeOtlp would.
  const r = new WireReader(body, 0, body.length, 'protobufjs');
  const resourceLogs: ResourceLogs[] = [];
  while (r.pos < r.end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) {
      expect(tag & 7, LENGTH_DELIMITED, 'resource_logs');
      resourceLogs.push(readResourceLogs(r.sub()));
    } else r.skip(tag & 7);
  }
  return { resourceLogs };
}

function readResourceLogs(r: WireReader): ResourceLogs {
  const out: ResourceLogs = { resource: null, scopeLogs: [], schemaUrl: '' };
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        expect(tag & 7, LENGTH_DELIMITED, 'resource');
        out.resource = readResource(r.sub(), out.resource);
        break;
      case 2:
        expect(tag & 7, LENGTH_DELIMITED, 'scope_logs');
        out.scopeLogs.push(readScopeLogs(r.sub()));
        break;
      case 3:
        expect(tag & 7, LENGTH_DELIMITED, 'schema_url');
        out.schemaUrl = r.string();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return out;
}

/** Resource, with the fields our schema declares (entity refs are kept as protobufjs keeps them). */
function readResource(r: WireReader, previous: Resource | null): Resource {
  // A message field seen twice merges, as protobuf requires.
  const out = (previous ?? { attributes: [], droppedAttributesCount: 0, entityRefs: [] }) as Resource & {
    entityRefs: unknown[];
  };
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        expect(tag & 7, LENGTH_DELIMITED, 'attributes');
        out.attributes.push(readKeyValue(r.sub(), 0));
        break;
      case 2:
        expect(tag & 7, VARINT, 'dropped_attributes_count');
        out.droppedAttributesCount = r.uint32();
        break;
      case 3:
        expect(tag & 7, LENGTH_DELIMITED, 'entity_refs');
        out.entityRefs.push(readEntityRef(r.sub()));
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return out;
}

function readEntityRef(r: WireReader): unknown {
  const out = { schemaUrl: '', type: '', idKeys: [] as string[], descriptionKeys: [] as string[] };
  while (r.pos < r.end) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if (field >= 1 && field <= 4) {
      expect(tag & 7, LENGTH_DELIMITED, 'entity_ref');
      const text = r.string();
      if (field === 1) out.schemaUrl = text;
      else if (field === 2) out.type = text;
      else if (field === 3) out.idKeys.push(text);
      else out.descriptionKeys.push(text);
    } else r.skip(tag & 7);
  }
  return out;
}

function readScopeLogs(r: WireReader): ScopeLogs {
  const out: ScopeLogs = { scope: null, logRecords: [], schemaUrl: '' };
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        expect(tag & 7, LENGTH_DELIMITED, 'scope');
        out.scope = readScope(r.sub(), out.scope);
        break;
      case 2:
        expect(tag & 7, LENGTH_DELIMITED, 'log_records');
        out.logRecords.push(readLogRecord(r.sub()));
        break;
      case 3:
        expect(tag & 7, LENGTH_DELIMITED, 'schema_url');
        out.schemaUrl = r.string();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return out;
}

function readScope(r: WireReader, previous: InstrumentationScope | null): InstrumentationScope {
  const out = previous ?? { name: '', version: '', attributes: [], droppedAttributesCount: 0 };
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        expect(tag & 7, LENGTH_DELIMITED, 'name');
        out.name = r.string();
        break;
      case 2:
        expect(tag & 7, LENGTH_DELIMITED, 'version');
        out.version = r.string();
        break;
      case 3:
        expect(tag & 7, LENGTH_DELIMITED, 'attributes');
        out.attributes.push(readKeyValue(r.sub(), 0));
        break;
      case 4:
        expect(tag & 7, VARINT, 'dropped_attributes_count');
        out.droppedAttributesCount = r.uint32();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return out;
}

function readLogRecord(r: WireReader): LogRecord {
  const out: LogRecord = {
    timeUnixNano: 0n,
    observedTimeUnixNano: 0n,
    severityNumber: 0,
    severityText: '',
    body: null,
    attributes: [],
    droppedAttributesCount: 0,
    flags: 0,
    traceId: EMPTY_BYTES,
    spanId: EMPTY_BYTES,
    eventName: '',
  };
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        expect(tag & 7, FIXED64, 'time_unix_nano');
        out.timeUnixNano = r.fixed64();
        break;
      case 11:
        expect(tag & 7, FIXED64, 'observed_time_unix_nano');
        out.observedTimeUnixNano = r.fixed64();
        break;
      case 2:
        expect(tag & 7, VARINT, 'severity_number');
        out.severityNumber = r.uint32() | 0;
        break;
      case 3:
        expect(tag & 7, LENGTH_DELIMITED, 'severity_text');
        out.severityText = r.string();
        break;
      case 5:
        expect(tag & 7, LENGTH_DELIMITED, 'body');
        out.body = readAnyValue(r.sub(), 0, out.body);
        break;
      case 6:
        expect(tag & 7, LENGTH_DELIMITED, 'attributes');
        out.attributes.push(readKeyValue(r.sub(), 0));
        break;
      case 7:
        expect(tag & 7, VARINT, 'dropped_attributes_count');
        out.droppedAttributesCount = r.uint32();
        break;
      case 8:
        expect(tag & 7, FIXED32, 'flags');
        out.flags = r.fixed32();
        break;
      case 9:
        expect(tag & 7, LENGTH_DELIMITED, 'trace_id');
        out.traceId = r.bytes();
        break;
      case 10:
        expect(tag & 7, LENGTH_DELIMITED, 'span_id');
        out.spanId = r.bytes();
        break;
      case 12:
        expect(tag & 7, LENGTH_DELIMITED, 'event_name');
        out.eventName = r.string();
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return out;
}

/** Shared empty id: records without ids are the common case; nobody writes into it. */
const EMPTY_BYTES = Buffer.alloc(0);

function readKeyValue(r: WireReader, depth: number): KeyValue {
  const out: KeyValue & { keyStrindex: number } = { key: '', value: null, keyStrindex: 0 };
  while (r.pos < r.end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        expect(tag & 7, LENGTH_DELIMITED, 'key');
        out.key = r.string();
        break;
      case 2:
        expect(tag & 7, LENGTH_DELIMITED, 'value');
        out.value = readAnyValue(r.sub(), depth, out.value);
        break;
      case 3:
        expect(tag & 7, VARINT, 'key_strindex');
        out.keyStrindex = r.uint32() | 0;
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return out;
}

/** AnyValue: a oneof, so a later member replaces an earlier one (protobuf's rule). */
function readAnyValue(r: WireReader, depth: number, previous: AnyValue | null): AnyValue {
  if (depth > NESTING_DEPTH_MAX) throw new WireError('max depth exceeded');
  let out: AnyValue = previous ?? {};
  while (r.pos < r.end) {
    const tag = r.uint32();
    const wireType = tag & 7;
    switch (tag >>> 3) {
      case 1:
        expect(wireType, LENGTH_DELIMITED, 'string_value');
        out = { stringValue: r.string() };
        break;
      case 2:
        expect(wireType, VARINT, 'bool_value');
        out = { boolValue: r.uint32() !== 0 };
        break;
      case 3:
        expect(wireType, VARINT, 'int_value');
        out = { intValue: r.int64BigInt() };
        break;
      case 4:
        expect(wireType, FIXED64, 'double_value');
        out = { doubleValue: r.double() };
        break;
      case 5: {
        expect(wireType, LENGTH_DELIMITED, 'array_value');
        const values = out.arrayValue ? out.arrayValue.values : [];
        const sub = r.sub();
        while (sub.pos < sub.end) {
          const t = sub.uint32();
          if (t >>> 3 === 1) {
            expect(t & 7, LENGTH_DELIMITED, 'values');
            values.push(readAnyValue(sub.sub(), depth + 1, null));
          } else sub.skip(t & 7);
        }
        out = { arrayValue: { values } };
        break;
      }
      case 6: {
        expect(wireType, LENGTH_DELIMITED, 'kvlist_value');
        const values = out.kvlistValue ? out.kvlistValue.values : [];
        const sub = r.sub();
        while (sub.pos < sub.end) {
          const t = sub.uint32();
          if (t >>> 3 === 1) {
            expect(t & 7, LENGTH_DELIMITED, 'values');
            values.push(readKeyValue(sub.sub(), depth + 1));
          } else sub.skip(t & 7);
        }
        out = { kvlistValue: { values } };
        break;
      }
      case 7:
        expect(wireType, LENGTH_DELIMITED, 'bytes_value');
        out = { bytesValue: r.bytes() };
        break;
      case 8:
        expect(wireType, VARINT, 'string_value_strindex');
        out = { stringValueStrindex: r.uint32() | 0 };
        break;
      default:
        r.skip(wireType);
    }
  }
  return out;
}
