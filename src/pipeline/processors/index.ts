/**
 * Every processor by its YAML name (reference ingest §9.3). The compiler looks names up here; a
 * name missing here is an "unsupported processor" error.
 */
import type { ProcessorFactory } from '../processor.js';
import { cmcd } from './cmcd.js';
import { csv } from './csv.js';
import { date } from './date.js';
import { decolorize } from './decolorize.js';
import { digest } from './digest.js';
import { dissect } from './dissect.js';
import { epoch } from './epoch.js';
import { filter } from './filter.js';
import { gsub } from './gsub.js';
import { join } from './join.js';
import { jsonParse } from './json-parse.js';
import { jsonPath } from './json-path.js';
import { letter } from './letter.js';
import { regex } from './regex.js';
import { select } from './select.js';
import { simpleExtract } from './simple-extract.js';
import { urlencoding } from './urlencoding.js';
import { vrl } from './vrl.js';

export const PROCESSORS: Record<string, ProcessorFactory> = {
  date,
  epoch,
  dissect,
  regex,
  gsub,
  join,
  letter,
  csv,
  json_path: jsonPath,
  json_parse: jsonParse,
  simple_extract: simpleExtract,
  urlencoding,
  decolorize,
  digest,
  select,
  filter,
  cmcd,
  vrl,
};
