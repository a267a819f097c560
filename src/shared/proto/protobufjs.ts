/**
 * protobufjs, loaded when a path first needs it rather than at start-up. Every thread used to load
 * the package (a few dozen CommonJS files) and parse all three schemas (Prometheus, OTLP, Loki) as
 * it started, ~0.1 s of CPU per thread on each start, for protocols most servers' threads never
 * see: metric ingest walks the wire itself (write-decode.ts), and a shard decodes an OTLP or Loki
 * body only when one arrives. The first such request in a thread pays that once instead.
 * protobufjs is CommonJS, so `require` loads it synchronously.
 */
import { createRequire } from 'node:module';
import type protobuf from 'protobufjs';

let loaded: typeof protobuf | undefined;

/** The protobufjs package, loaded on the first call. */
export function protobufjs(): typeof protobuf {
  loaded ??= createRequire(import.meta.url)('protobufjs') as typeof protobuf;
  return loaded;
}

/**
 * Message types by name, looked up in the root `build` returns; the root is built when the first
 * of them is read, and each type is looked up once.
 */
export function lazyTypes<K extends string>(
  build: (pb: typeof protobuf) => protobuf.Root,
  names: Readonly<Record<K, string>>,
): Readonly<Record<K, protobuf.Type>> {
  let root: protobuf.Root | undefined;
  const types = {} as Record<K, protobuf.Type>;
  for (const key of Object.keys(names) as K[]) {
    let type: protobuf.Type | undefined;
    Object.defineProperty(types, key, {
      enumerable: true,
      get(): protobuf.Type {
        if (type === undefined) {
          root ??= build(protobufjs());
          type = root.lookupType(names[key]);
        }
        return type;
      },
    });
  }
  return Object.freeze(types);
}
