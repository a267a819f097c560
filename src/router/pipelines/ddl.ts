/**
 * `GET /v1/pipelines/{name}/ddl` (reference ingest §8): the CREATE TABLE a pipeline's transform
 * implies, in SHOW CREATE TABLE's layout with back-quoted names and index clauses.
 */
import type { OutputColumn } from '../../pipeline/output.js';
import { sqlNameOf } from '../../query/sql/types/type-names.js';

const FULLTEXT_DEFAULTS: Record<string, string> = {
  analyzer: 'English',
  backend: 'bloom',
  case_sensitive: 'false',
  false_positive_rate: '0.01',
  granularity: '10240',
};
const SKIPPING_DEFAULTS: Record<string, string> = { false_positive_rate: '0.01', granularity: '10240', type: 'BLOOM' };

function quoted(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

function withOptions(options: Record<string, string>, defaults: Record<string, string>): string {
  const all = { ...defaults, ...options };
  const text = Object.keys(all)
    .sort()
    .map((k) => `${k} = '${(all[k] as string).replaceAll("'", "''")}'`)
    .join(', ');
  return `WITH(${text})`;
}

function indexClause(c: OutputColumn): string {
  switch (c.index?.kind) {
    case 'inverted':
      return ' INVERTED INDEX';
    case 'fulltext':
      return ` FULLTEXT INDEX ${withOptions(c.index.options, FULLTEXT_DEFAULTS)}`;
    case 'skipping':
      return ` SKIPPING INDEX ${withOptions(c.index.options, SKIPPING_DEFAULTS)}`;
    default:
      return '';
  }
}

export function pipelineDdl(table: string, columns: OutputColumn[]): string {
  const lines = columns.map(
    (c) =>
      `  ${quoted(c.name)} ${sqlNameOf(c.type)} ${c.semantic === 'TIMESTAMP' ? 'NOT NULL' : 'NULL'}${indexClause(c)}`,
  );
  const timeIndex = columns.find((c) => c.semantic === 'TIMESTAMP');
  if (timeIndex) lines.push(`  TIME INDEX (${quoted(timeIndex.name)})`);
  const tags = columns.filter((c) => c.semantic === 'TAG');
  if (tags.length > 0) lines.push(`  PRIMARY KEY (${tags.map((c) => quoted(c.name)).join(', ')})`);
  return `CREATE TABLE IF NOT EXISTS ${quoted(table)} (\n${lines.join(',\n')}\n)\nENGINE=mito\nWITH(\n  append_mode = 'true'\n)`;
}
