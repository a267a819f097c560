/**
 * zstd for Arrow IPC bodies (`compression=zstd`) and `Content-Encoding: zstd` request bodies.
 * Node 20's zlib has no zstd, so this wraps the WebAssembly build of the reference library
 * (@bokuweb/zstd-wasm), which must be initialised once, asynchronously, before first use.
 */
import { compress, decompress, init } from '@bokuweb/zstd-wasm';

let ready: Promise<void> | null = null;
let initialised = false;

/** Loads the WebAssembly module; call at start-up (idempotent). */
export function initZstd(): Promise<void> {
  ready ??= init().then(() => {
    initialised = true;
  });
  return ready;
}

function requireReady(): void {
  if (!initialised) throw new Error('zstd is not initialised (initZstd() was not awaited)');
}

export function zstdCompress(bytes: Uint8Array, level = 3): Uint8Array {
  requireReady();
  return compress(bytes, level);
}

const ZSTD_MAGIC = 0xfd2fb528;

/**
 * The content size a zstd frame header declares, null when the frame does not say (streaming
 * writers), or undefined when `bytes` does not start with a zstd frame.
 */
export function zstdDeclaredSize(bytes: Uint8Array): number | null | undefined {
  if (bytes.length < 6) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== ZSTD_MAGIC) return undefined;
  const descriptor = bytes[4] as number;
  const sizeFlag = descriptor >>> 6;
  const singleSegment = (descriptor & 0x20) !== 0;
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 3] as number;
  const at = 5 + (singleSegment ? 0 : 1) + dictionaryBytes;
  const sizeBytes = sizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << sizeFlag;
  if (sizeBytes === 0) return null;
  if (bytes.length < at + sizeBytes) return undefined;
  switch (sizeBytes) {
    case 1:
      return view.getUint8(at);
    case 2:
      return view.getUint16(at, true) + 256;
    case 4:
      return view.getUint32(at, true);
    default:
      return Number(view.getBigUint64(at, true));
  }
}

/** Why a zstd body was refused: not zstd at all, or larger than allowed once decompressed. */
export class ZstdError extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/** Decompresses, refusing output past `maxBytes` before allocating it. */
export function zstdDecompress(bytes: Uint8Array, maxBytes: number): Uint8Array {
  requireReady();
  const declared = zstdDeclaredSize(bytes);
  if (declared === undefined) throw new ZstdError('not a zstd frame');
  if (declared !== null && declared > maxBytes) {
    throw new ZstdError(`declares ${declared} bytes, more than the ${maxBytes} allowed`, true);
  }
  try {
    return decompress(bytes, { defaultHeapSize: declared ?? maxBytes });
  } catch {
    // The library reports every failure as "Failed to compress"; the likely causes are these.
    throw new ZstdError(
      declared === null ? `corrupt, or larger than the ${maxBytes} bytes allowed` : 'corrupt frame',
      declared === null,
    );
  }
}
