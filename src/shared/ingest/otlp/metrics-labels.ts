/**
 * The labels (tags) of OTLP metric samples (reference ingest §3.3), built in three layers that
 * later layers overwrite by name:
 *
 *   resource  promoted resource attributes; `service.name` → also `job`,
 *             `service.instance.id` → also `instance`
 *   scope     only with the promote-scope header: `otel_scope_<attr>`, `otel_scope_name`,
 *             `otel_scope_version`, `otel_scope_schema_url`
 *   point     the data point's attributes
 *
 * Only string, int and double values become labels (`anyValueToLabel`); bool, bytes, array and
 * kvlist attributes are dropped, as GreptimeDB drops them. An empty value is the same as no label,
 * as in Prometheus, so it never overwrites a lower layer.
 *
 * Resource attributes that are not promoted are not lost: `target_info` (Prometheus' OTLP
 * receiver's info metric) carries them, keyed by `job` and `instance` (see `targetInfoLabels`).
 */

import type { KeyValue, Resource, ScopeMetrics } from '../../proto/otlp.js';
import { anyValueToLabel } from './attributes.js';
import { labelNameOf } from './metrics-naming.js';
import type { OtlpMetricsOptions } from './metrics-options.js';

/**
 * Resource attributes promoted to labels by default: Prometheus' list of identifying attributes
 * (prometheus.io/docs/guides/opentelemetry), which GreptimeDB copies.
 */
export const DEFAULT_PROMOTED_RESOURCE_ATTRIBUTES: ReadonlySet<string> = new Set([
  'service.instance.id',
  'service.name',
  'service.namespace',
  'service.version',
  'cloud.availability_zone',
  'cloud.region',
  'container.name',
  'deployment.environment',
  'deployment.environment.name',
  'k8s.cluster.name',
  'k8s.container.name',
  'k8s.cronjob.name',
  'k8s.daemonset.name',
  'k8s.deployment.name',
  'k8s.job.name',
  'k8s.namespace.name',
  'k8s.pod.name',
  'k8s.replicaset.name',
  'k8s.statefulset.name',
]);

const SERVICE_NAME = 'service.name';
const SERVICE_NAMESPACE = 'service.namespace';
const SERVICE_INSTANCE_ID = 'service.instance.id';

/** The info metric that keeps a resource's attributes (Prometheus' name). */
export const TARGET_INFO_METRIC = 'target_info';

/** Labels, or why they cannot be built (an attribute key that escapes to nothing). */
export type LabelsResult = { labels: Map<string, string>; error: null } | { labels: null; error: string };

/**
 * Writes `attributes` into `labels` under their label names (`prefix` + escaped key); a key that
 * gives no name is an error.
 */
function writeAttributes(
  labels: Map<string, string>,
  attributes: readonly KeyValue[],
  options: OtlpMetricsOptions,
  prefix: string,
  keep: (key: string) => boolean,
): string | null {
  for (const kv of attributes) {
    if (!keep(kv.key)) continue;
    const value = anyValueToLabel(kv.value);
    if (value === null || value === '') continue;
    const name = labelNameOf(kv.key, options.strategy);
    if (name === '') return 'attribute with an empty key';
    labels.set(prefix + name, value);
  }
  return null;
}

function stringOf(attributes: readonly KeyValue[], key: string): string | null {
  let out: string | null = null;
  for (const kv of attributes) if (kv.key === key) out = anyValueToLabel(kv.value);
  return out === '' ? null : out;
}

/** The resource layer: promoted attributes plus `job` and `instance`. */
export function resourceLabels(resource: Resource | null, options: OtlpMetricsOptions): LabelsResult {
  const labels = new Map<string, string>();
  const attributes = resource?.attributes ?? [];
  const keep = options.promoteAllResourceAttributes
    ? (key: string) => !options.ignoreResourceAttributes.has(key)
    : (key: string) => DEFAULT_PROMOTED_RESOURCE_ATTRIBUTES.has(key) || options.promoteResourceAttributes.has(key);
  const error = writeAttributes(labels, attributes, options, '', keep);
  if (error !== null) return { labels: null, error: `resource ${error}` };
  // Written after the attributes, so these win over attributes literally named job/instance.
  const job = stringOf(attributes, SERVICE_NAME);
  if (job !== null) labels.set('job', job);
  const instance = stringOf(attributes, SERVICE_INSTANCE_ID);
  if (instance !== null) labels.set('instance', instance);
  return { labels, error: null };
}

/** The scope layer on top of `base`; `base` itself when scope attributes are not promoted. */
export function scopeLabels(
  base: Map<string, string>,
  scopeMetrics: ScopeMetrics,
  options: OtlpMetricsOptions,
): LabelsResult {
  if (!options.promoteScopeAttributes) return { labels: base, error: null };
  const labels = new Map(base);
  const scope = scopeMetrics.scope;
  const error = writeAttributes(labels, scope?.attributes ?? [], options, 'otel_scope_', () => true);
  if (error !== null) return { labels: null, error: `scope ${error}` };
  const fixed: Array<[string, string]> = [
    ['otel_scope_name', scope?.name ?? ''],
    ['otel_scope_version', scope?.version ?? ''],
    ['otel_scope_schema_url', scopeMetrics.schemaUrl],
  ];
  for (const [name, value] of fixed) if (value !== '') labels.set(name, value);
  return { labels, error: null };
}

/** The point layer: a copy of `base` with the point's attributes written over it. */
export function pointLabels(
  base: ReadonlyMap<string, string>,
  attributes: readonly KeyValue[],
  options: OtlpMetricsOptions,
): LabelsResult {
  const labels = new Map(base);
  const error = writeAttributes(labels, attributes, options, '', () => true);
  if (error !== null) return { labels: null, error: `data point ${error}` };
  return { labels, error: null };
}

/**
 * The labels of a resource's `target_info` series, or null when it gets none. As Prometheus' OTLP
 * receiver: every attribute except `service.name`, `service.namespace` and `service.instance.id`
 * (whatever the promote headers say), plus `job` and `instance`; none when no other attribute is
 * left or when neither `job` nor `instance` identifies the resource.
 */
export function targetInfoLabels(resource: Resource | null, options: OtlpMetricsOptions): Map<string, string> | null {
  const attributes = resource?.attributes ?? [];
  const identifying = (key: string) => key === SERVICE_NAME || key === SERVICE_NAMESPACE || key === SERVICE_INSTANCE_ID;
  const labels = new Map<string, string>();
  // Attributes with empty keys cannot become labels; the info metric just leaves them out.
  const error = writeAttributes(labels, attributes, options, '', (key) => key !== '' && !identifying(key));
  if (error !== null || labels.size === 0) return null;
  const job = stringOf(attributes, SERVICE_NAME);
  const instance = stringOf(attributes, SERVICE_INSTANCE_ID);
  if (job === null && instance === null) return null;
  if (job !== null) labels.set('job', job);
  if (instance !== null) labels.set('instance', instance);
  return labels;
}

/**
 * A number as label text the way Prometheus writes `le` and `quantile` labels (Go's
 * `FormatFloat(v, 'f', -1, 64)`): the shortest round-trip digits, never an exponent (`1e-7` →
 * `0.0000001`), `+Inf`/`-Inf`/`NaN` for the specials.
 */
export function plainDecimal(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  if (value === 0) return '0';
  const text = String(value);
  const e = text.indexOf('e');
  if (e < 0) return text;
  const negative = text.startsWith('-');
  const mantissa = text.slice(negative ? 1 : 0, e);
  const exponent = Number(text.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  // Position of the decimal point counted from the first digit.
  const point = (dot < 0 ? mantissa.length : dot) + exponent;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${out}` : out;
}
