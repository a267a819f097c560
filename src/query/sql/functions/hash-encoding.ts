/**
 * Hashes and byte encodings: md5 (hex text), sha224/sha256/sha384/sha512 and digest (Binary, as
 * DataFusion returns them), encode/decode (base64, hex) and to_hex. Binary values are held as
 * latin1 strings of their bytes (values.ts), so a String argument is hashed as its UTF-8 bytes
 * and a Binary one as the bytes it holds. Node's crypto does the hashing, `@noble/hashes` the
 * BLAKE3 that Node lacks.
 */
import { createHash, getHashes } from 'node:crypto';
import { blake3 } from '@noble/hashes/blake3';
import { DbError, ErrorCode } from '../../../shared/errors.js';
import type { DataType } from '../../../shared/types.js';
import { isInteger } from '../types/type-names.js';
import type { Value } from '../types/values.js';
import { signatureError } from './typed.js';
import type { ScalarFunction } from './types.js';

function isBytesLike(t: DataType): boolean {
  return t === 'String' || t === 'Binary' || t === 'Null';
}

function bytesOf(v: Value, type: DataType | undefined): Buffer {
  return Buffer.from(v as string, type === 'Binary' ? 'latin1' : 'utf8');
}

/** DataFusion's digest names mapped to Node's (blake3 is not among them). */
const DIGESTS: Record<string, string> = {
  md5: 'md5',
  sha224: 'sha224',
  sha256: 'sha256',
  sha384: 'sha384',
  sha512: 'sha512',
  blake2b: 'blake2b512',
  blake2s: 'blake2s256',
};
const AVAILABLE = new Set(getHashes());

function digestOf(algorithm: string, bytes: Buffer): Buffer {
  const name = algorithm.toLowerCase();
  if (name === 'blake3') {
    const d = blake3(bytes);
    return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  }
  const nodeName = DIGESTS[name];
  if (nodeName === undefined || !AVAILABLE.has(nodeName)) {
    throw new DbError(
      ErrorCode.EngineExecuteQuery,
      `Execution error: There is no built-in digest algorithm named '${algorithm}'`,
    );
  }
  return createHash(nodeName).update(bytes).digest();
}

/** A one-argument hash: hex text for md5, Binary for the SHA-2 family. */
function hash(name: string, hex: boolean): ScalarFunction {
  return {
    kind: 'scalar',
    name,
    bind(argTypes) {
      if (argTypes.length !== 1 || !isBytesLike(argTypes[0] as DataType)) throw signatureError(name, argTypes);
      const t = argTypes[0] === 'Null' ? 'String' : (argTypes[0] as DataType);
      return { argTypes: [t], returnType: hex ? 'String' : 'Binary' };
    },
    evaluate(args, rowCount, _ctx, _returnType, argTypes) {
      const values = args[0] as Value[];
      return values.slice(0, rowCount).map((v) => {
        if (v === null) return null;
        const d = digestOf(name, bytesOf(v, argTypes?.[0]));
        return hex ? d.toString('hex') : d.toString('latin1');
      });
    },
  };
}

const digest: ScalarFunction = {
  kind: 'scalar',
  name: 'digest',
  bind(argTypes) {
    if (argTypes.length !== 2 || !isBytesLike(argTypes[0] as DataType) || !isBytesLike(argTypes[1] as DataType)) {
      throw signatureError('digest', argTypes);
    }
    const t = argTypes[0] === 'Null' ? 'String' : (argTypes[0] as DataType);
    return { argTypes: [t, 'String'], returnType: 'Binary' };
  },
  evaluate(args, rowCount, _ctx, _returnType, argTypes) {
    const out = new Array<Value>(rowCount);
    for (let r = 0; r < rowCount; r++) {
      const v = (args[0] as Value[])[r] as Value;
      const algorithm = (args[1] as Value[])[r] as string | null;
      out[r] =
        v === null || algorithm === null ? null : digestOf(algorithm, bytesOf(v, argTypes?.[0])).toString('latin1');
    }
    return out;
  },
};

function encodingOf(name: Value): 'base64' | 'hex' {
  const n = (name as string).toLowerCase();
  if (n === 'base64' || n === 'hex') return n;
  throw new DbError(
    ErrorCode.EngineExecuteQuery,
    `Execution error: There is no built-in encoding named '${name as string}', currently supported encodings are: base64, hex`,
  );
}

/**
 * Signature and row loop of `encode`/`decode`: bytes-like text or binary plus an encoding name,
 * NULL in either gives NULL.
 */
function codecFunction(
  name: string,
  returnType: DataType,
  convert: (bytes: Buffer, encoding: 'base64' | 'hex') => Value,
): Pick<ScalarFunction, 'bind' | 'evaluate'> {
  return {
    bind(argTypes) {
      if (argTypes.length !== 2 || !isBytesLike(argTypes[0] as DataType) || !isBytesLike(argTypes[1] as DataType)) {
        throw signatureError(name, argTypes);
      }
      const t = argTypes[0] === 'Null' ? 'String' : (argTypes[0] as DataType);
      return { argTypes: [t, 'String'], returnType };
    },
    evaluate(args, rowCount, _ctx, _returnType, argTypes) {
      const out = new Array<Value>(rowCount);
      for (let r = 0; r < rowCount; r++) {
        const v = (args[0] as Value[])[r] as Value;
        const encoding = (args[1] as Value[])[r] as Value;
        out[r] = v === null || encoding === null ? null : convert(bytesOf(v, argTypes?.[0]), encodingOf(encoding));
      }
      return out;
    },
  };
}

/** `encode(bytes, 'base64'|'hex')`: text; base64 without padding, as DataFusion writes it. */
const encode: ScalarFunction = {
  kind: 'scalar',
  name: 'encode',
  ...codecFunction('encode', 'String', (bytes, encoding) =>
    encoding === 'hex' ? bytes.toString('hex') : bytes.toString('base64').replace(/=+$/, ''),
  ),
};

function decodeText(text: string, encoding: 'base64' | 'hex'): Buffer {
  const valid = encoding === 'hex' ? /^(?:[0-9a-fA-F]{2})*$/ : /^[A-Za-z0-9+/]*={0,2}$/;
  if (!valid.test(text) || (encoding === 'base64' && text.replace(/=+$/, '').length % 4 === 1)) {
    throw new DbError(ErrorCode.EngineExecuteQuery, `Execution error: Failed to decode value using ${encoding}`);
  }
  return Buffer.from(text, encoding);
}

/** `decode(text, 'base64'|'hex')`: the bytes, as Binary. */
const decode: ScalarFunction = {
  kind: 'scalar',
  name: 'decode',
  ...codecFunction('decode', 'Binary', (bytes, encoding) =>
    decodeText(bytes.toString('latin1'), encoding).toString('latin1'),
  ),
};

/** `to_hex(n)`: lower-case hex; a negative number prints its 64-bit two's complement. */
const toHex: ScalarFunction = {
  kind: 'scalar',
  name: 'to_hex',
  bind(argTypes) {
    const t = argTypes[0] as DataType;
    if (argTypes.length !== 1 || !(t === 'Null' || isInteger(t))) throw signatureError('to_hex', argTypes);
    return { argTypes: [t === 'UInt64' ? 'UInt64' : 'Int64'], returnType: 'String' };
  },
  evaluate: (args, rowCount) =>
    (args[0] as Value[])
      .slice(0, rowCount)
      .map((v) => (v === null ? null : BigInt.asUintN(64, BigInt(v as bigint)).toString(16))),
};

/** Hash and encoding functions by SQL name. */
export const HASH_ENCODING_FUNCTIONS: Record<string, ScalarFunction> = {
  md5: hash('md5', true),
  sha224: hash('sha224', false),
  sha256: hash('sha256', false),
  sha384: hash('sha384', false),
  sha512: hash('sha512', false),
  digest,
  encode,
  decode,
  to_hex: toHex,
};
