import { createHash } from "node:crypto";
import { Transform } from "node:stream";
import { crc32 } from "node:zlib";
import { createChecksum, type Checksum, type ChecksumAlgorithm } from "./checksum";
import { S3Error } from "./s3-error";

/** What a {@link createDigestStream} saw once the stream ended. */
export interface Digests {
  size: number;
  md5: Buffer;
  /** Base64 big-endian CRC-32 of all bytes: every object gets one, for full-object checksums on download. */
  crc32: string;
  /** The base64 digest of the extra algorithm asked for, if any. */
  extra: string | undefined;
}

/** A pass-through transform that measures its bytes; `digests()` is valid after the end. */
export interface DigestStream extends Transform {
  digests(): Digests;
}

/**
 * Counts and hashes the bytes passing through: MD5 (the ETag), CRC-32 and optionally a client's checksum
 * algorithm. More than `maxSize` bytes fail the stream with EntityTooLarge.
 */
export function createDigestStream(options: { maxSize: number; algorithm?: ChecksumAlgorithm }): DigestStream {
  const md5 = createHash("md5");
  const extra: Checksum | undefined =
    options.algorithm === undefined || options.algorithm === "CRC32" ? undefined : createChecksum(options.algorithm);
  let crc = 0;
  let size = 0;
  let md5Digest: Buffer | undefined;
  let extraDigest: string | undefined;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > options.maxSize) {
        callback(new S3Error("EntityTooLarge", "Your proposed upload exceeds the maximum allowed size."));
        return;
      }
      md5.update(chunk);
      crc = crc32(chunk, crc);
      extra?.update(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      md5Digest = md5.digest();
      if (extra === undefined) return callback();
      extra.digest().then((digest) => {
        extraDigest = digest;
        callback();
      }, callback);
    },
  });
  return Object.assign(stream, {
    digests(): Digests {
      if (md5Digest === undefined) throw new Error("digests read before the stream ended");
      const crcBytes = Buffer.alloc(4);
      crcBytes.writeUInt32BE(crc >>> 0);
      const crcBase64 = crcBytes.toString("base64");
      return { size, md5: md5Digest, crc32: crcBase64, extra: options.algorithm === "CRC32" ? crcBase64 : extraDigest };
    },
  });
}
