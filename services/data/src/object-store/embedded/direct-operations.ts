import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ObjectStore } from "../object-store";
import { createDigestStream } from "./digest-stream";
import type { DiskStore } from "./disk-store";
import { validateObjectKey } from "./object-key";
import { S3Error } from "./s3-error";

/** The store's own reads and writes (exports, action outputs, record checks). */
export type DirectOperations = Pick<ObjectStore, "head" | "putObject" | "getObject" | "deleteObjects">;

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
