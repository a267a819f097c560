/** Reading the pprof profiles of /debug/prof with pprof-format, as `go tool pprof` would. */
import zlib from 'node:zlib';
import { Profile } from 'pprof-format';

export interface PprofSummary {
  /** The `thread` label values of the samples (router, shard-0, ...). */
  threads: Set<string>;
  /** Source files of every function. */
  files: Set<string>;
  /** The last sample type as `type/unit` (e.g. `space/bytes`). */
  type: string;
}

export function readPprof(gzipped: Buffer): PprofSummary {
  const p = Profile.decode(zlib.gunzipSync(gzipped));
  const strings = p.stringTable.strings;
  const threads = new Set<string>();
  for (const s of p.sample)
    for (const l of s.label) if (strings[Number(l.key)] === 'thread') threads.add(strings[Number(l.str)] ?? '');
  const files = new Set(p.function.map((f) => strings[Number(f.filename)] ?? ''));
  const last = p.sampleType[p.sampleType.length - 1];
  return { threads, files, type: `${strings[Number(last?.type)]}/${strings[Number(last?.unit)]}` };
}
