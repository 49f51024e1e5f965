import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createDigestStream } from "./digest-stream";
import type { DiskStore } from "./disk-store";
import { validateObjectKey } from "./object-key";
import { S3Error } from "./s3-error";

/** What is known of a stored object. */
export interface ObjectHead {
  size: number;
  /** The quoted ETag S3 clients see: the MD5 of the bytes, or of the parts' MD5s with `-<parts>` after a multipart upload. */
  etag: string;
}

/** The store's own reads and writes, without HTTP or signatures (for the program that embeds it). */
export interface DirectOperations {
  /** The object's size and ETag, or undefined when it does not exist. */
  head(key: string): Promise<ObjectHead | undefined>;
  /** Writes an object from bytes or a stream, atomically: readers see the old object or the whole new one. */
  putObject(key: string, body: Buffer | Readable, contentType?: string): Promise<void>;
  /** Streams an object; a missing one is an S3Error NoSuchKey. */
  getObject(key: string): Promise<Readable>;
  /** Deletes objects; absent keys are not an error. */
  deleteObjects(keys: string[]): Promise<void>;
}

/**
 * The platform's object operations, straight on disk: no HTTP, no signatures, the same layout, metadata
 * and atomic renames as uploads through the endpoint. A missing object is an S3Error NoSuchKey.
 */
export function createDirectOperations({ disk, now }: { disk: DiskStore; now: () => Date }): DirectOperations {
  return {
    async head(key) {
      validateObjectKey(key);
      const metadata = await disk.stat(key);
      return metadata === undefined ? undefined : { size: metadata.size, etag: metadata.etag };
    },
    async putObject(key, body, contentType) {
      validateObjectKey(key);
      const file = disk.temporaryFile();
      const digest = createDigestStream({ maxSize: Number.MAX_SAFE_INTEGER });
      try {
        await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, digest, createWriteStream(file, { flags: "wx", flush: true }));
      } catch (error) {
        await rm(file, { force: true });
        throw error;
      }
      const { size, md5, crc32 } = digest.digests();
      await disk.commit(key, file, {
        size,
        etag: `"${md5.toString("hex")}"`,
        lastModified: now().toISOString(),
        crc32,
        headers: contentType === undefined ? {} : { "content-type": contentType },
      });
    },
    async getObject(key) {
      validateObjectKey(key);
      const object = await disk.open(key);
      if (object === undefined) throw new S3Error("NoSuchKey", `The object '${key}' does not exist.`, { Key: key });
      return object.read();
    },
    async deleteObjects(keys) {
      keys.forEach(validateObjectKey);
      for (const key of keys) await disk.remove(key);
    },
  };
}
