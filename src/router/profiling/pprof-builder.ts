/**
 * Builds a pprof `Profile` (profile.proto, the format `go tool pprof` reads) one sample at a time:
 * strings, functions and locations are interned as they are first seen. Every sample carries a
 * `thread` label (`router`, `shard-0`, ...) so one profile covers the whole process.
 */
import {
  Label,
  Line,
  Location,
  Function as PprofFunction,
  Profile,
  Sample,
  StringTable,
  ValueType,
} from 'pprof-format';

/** One stack frame, already mapped to its source. */
export interface Frame {
  name: string;
  /** Source file (package-relative when inside the package); '' for V8's pseudo frames. */
  file: string;
  /** 1-based; 0 when unknown. */
  line: number;
}

/** The label key that names the thread a sample was taken on. */
export const THREAD_LABEL = 'thread';

export class PprofBuilder {
  private readonly strings = new StringTable();
  private readonly functions = new Map<string, PprofFunction>();
  private readonly locations = new Map<string, Location>();
  private readonly samples: Sample[] = [];
  private readonly comments: number[] = [];

  /**
   * `sampleTypes` are `[type, unit]` pairs, e.g. `['cpu', 'nanoseconds']`; the last one is the
   * profile's default. `period` says how much one sample stands for.
   */
  constructor(
    private readonly sampleTypes: [string, string][],
    private readonly period: { type: string; unit: string; value: number },
  ) {}

  /** The location id of a frame, interning it (and its function) on first sight. */
  locationOf(frame: Frame): number {
    const key = `${frame.name}\0${frame.file}\0${frame.line}`;
    let location = this.locations.get(key);
    if (location === undefined) {
      const functionKey = `${frame.name}\0${frame.file}`;
      let fn = this.functions.get(functionKey);
      if (fn === undefined) {
        const name = this.strings.dedup(frame.name);
        fn = new PprofFunction({
          id: this.functions.size + 1,
          name,
          systemName: name,
          filename: this.strings.dedup(frame.file),
          startLine: frame.line,
        });
        this.functions.set(functionKey, fn);
      }
      location = new Location({
        id: this.locations.size + 1,
        line: [new Line({ functionId: fn.id, line: frame.line })],
      });
      this.locations.set(key, location);
    }
    return Number(location.id);
  }

  /** Adds one sample: `locationIds` leaf first (pprof's order), one value per sample type. */
  addSample(locationIds: number[], values: number[], thread: string): void {
    const label = new Label({ key: this.strings.dedup(THREAD_LABEL), str: this.strings.dedup(thread) });
    this.samples.push(new Sample({ locationId: locationIds, value: values, label: [label] }));
  }

  /** A free-text note shown by `pprof -comments`. */
  addComment(text: string): void {
    this.comments.push(this.strings.dedup(text));
  }

  build(startMs: number, durationMs: number): Profile {
    const sampleType = this.sampleTypes.map(
      ([type, unit]) => new ValueType({ type: this.strings.dedup(type), unit: this.strings.dedup(unit) }),
    );
    const periodType = new ValueType({
      type: this.strings.dedup(this.period.type),
      unit: this.strings.dedup(this.period.unit),
    });
    return new Profile({
      sampleType,
      sample: this.samples,
      location: [...this.locations.values()],
      function: [...this.functions.values()],
      stringTable: this.strings,
      // V8 timestamps are monotonic microseconds; pprof wants wall-clock nanoseconds.
      timeNanos: BigInt(Math.round(startMs)) * 1_000_000n,
      durationNanos: BigInt(Math.max(0, Math.round(durationMs))) * 1_000_000n,
      periodType,
      period: this.period.value,
      comment: this.comments,
      defaultSampleType: sampleType[sampleType.length - 1]?.type ?? 0,
    });
  }
}
