/**
 * The request headers that steer the OTLP metrics mapping (reference ingest §3.3), read once per
 * request:
 *
 *   x-greptime-otlp-metric-promote-all-resource-attrs   true|1|yes|on|t → every resource attribute
 *   x-greptime-otlp-metric-promote-resource-attrs       a;b  (extra ones, when not promoting all)
 *   x-greptime-otlp-metric-ignore-resource-attrs        a;b  (left out, when promoting all)
 *   x-greptime-otlp-metric-promote-scope-attrs          true → otel_scope_* labels
 *   x-greptime-otlp-metric-translation-strategy         see metrics-naming.ts (unknown → 400)
 *   x-greptime-otlp-metric-exponential-histograms       classic (default) | native (unknown → 400)
 */
import { InvalidArgument } from '../../errors.js';
import { parseTranslationStrategy, type TranslationStrategy } from './metrics-naming.js';

/**
 * How exponential histograms are stored: `classic` cumulative `_bucket`/`_sum`/`_count` series
 * (metrics-exponential.ts, the default, queryable by classic-histogram PromQL), or `native`
 * histograms in the metric's own table (metrics-native.ts), as Prometheus 3's OTLP receiver
 * stores them.
 */
export type ExponentialHistogramMode = 'classic' | 'native';

function exponentialModeOf(header: string | undefined): ExponentialHistogramMode {
  const value = header?.trim().toLowerCase() ?? '';
  if (value === '' || value === 'classic') return 'classic';
  if (value === 'native') return 'native';
  throw new InvalidArgument(`Invalid OTLP exponential histogram mode: ${header}; expected classic or native`);
}

export interface OtlpMetricsOptions {
  strategy: TranslationStrategy;
  promoteAllResourceAttributes: boolean;
  /** Resource attributes promoted besides the default list (used when not promoting all). */
  promoteResourceAttributes: ReadonlySet<string>;
  /** Resource attributes left out when promoting all. */
  ignoreResourceAttributes: ReadonlySet<string>;
  promoteScopeAttributes: boolean;
  exponentialHistograms: ExponentialHistogramMode;
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on', 't']);

function flagOf(value: string | undefined): boolean {
  return value !== undefined && TRUE_WORDS.has(value.trim().toLowerCase());
}

function listOf(value: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (value ?? '').split(';')) {
    const name = part.trim();
    if (name !== '') out.add(name);
  }
  return out;
}

/** The options a request's headers (lower-case names) ask for. */
export function metricsOptionsOf(headers: ReadonlyMap<string, string>): OtlpMetricsOptions {
  return {
    strategy: parseTranslationStrategy(headers.get('x-greptime-otlp-metric-translation-strategy')),
    promoteAllResourceAttributes: flagOf(headers.get('x-greptime-otlp-metric-promote-all-resource-attrs')),
    promoteResourceAttributes: listOf(headers.get('x-greptime-otlp-metric-promote-resource-attrs')),
    ignoreResourceAttributes: listOf(headers.get('x-greptime-otlp-metric-ignore-resource-attrs')),
    promoteScopeAttributes: flagOf(headers.get('x-greptime-otlp-metric-promote-scope-attrs')),
    exponentialHistograms: exponentialModeOf(headers.get('x-greptime-otlp-metric-exponential-histograms')),
  };
}

/** Default options (no headers): the default strategy and the default promoted attributes. */
export const DEFAULT_METRICS_OPTIONS: OtlpMetricsOptions = metricsOptionsOf(new Map());
