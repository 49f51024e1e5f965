import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { once } from "node:events";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { crc32 } from "node:zlib";
import type { ChecksumAlgorithm } from "./checksum";
import type { DiskStore, ObjectMetadata } from "./disk-store";
import { createKeyedLock } from "./keyed-lock";
import type { ReceivedBody } from "./receive-body";
import { S3Error } from "./s3-error";

/** S3's smallest part, except for the last one. */
export const MIN_PART_SIZE = 5 * 1024 * 1024;

/** An open multipart upload. */
export interface MultipartUpload {
  uploadId: string;
  key: string;
  initiated: string;
  /** Headers given at creation, replayed on downloads of the completed object. */
  headers: Record<string, string>;
  checksumAlgorithm: ChecksumAlgorithm | undefined;
}

/** A stored part. */
export interface PartRecord {
  partNumber: number;
  size: number;
  etag: string;
  lastModified: string;
  crc32: string;
  checksum: { algorithm: ChecksumAlgorithm; value: string } | undefined;
}

/** A part as CompleteMultipartUpload names it. */
export interface CompletedPart {
  partNumber: number;
  etag: string;
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

/** Multipart uploads on disk, under `<dataDir>/multipart/<uploadId>/`. */
export interface MultipartStore {
  create(key: string, options: { headers: Record<string, string>; checksumAlgorithm: ChecksumAlgorithm | undefined }): Promise<MultipartUpload>;
  /** The upload, or NoSuchUpload when it is unknown, finished, or belongs to another key. */
  get(uploadId: string, key: string): Promise<MultipartUpload>;
  putPart(upload: MultipartUpload, partNumber: number, body: ReceivedBody): Promise<PartRecord>;
  listParts(upload: MultipartUpload): Promise<PartRecord[]>;
  /** Joins the parts into the object (streamed, never in memory) and ends the upload. */
  complete(upload: MultipartUpload, parts: readonly CompletedPart[]): Promise<ObjectMetadata>;
  abort(upload: MultipartUpload): Promise<void>;
}

/** Uploads left open this long are removed at start-up, as an S3 lifecycle rule would. */
const ABANDONED_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/** Opens the multipart area (pruning abandoned uploads); completed objects go through `disk`. */
export async function createMultipartStore(options: { dataDir: string; disk: DiskStore; now: () => Date }): Promise<MultipartStore> {
  const root = join(options.dataDir, "multipart");
  await mkdir(root, { recursive: true });
  await pruneAbandoned(root, options.now().getTime() - ABANDONED_AFTER_MS);
  const lock = createKeyedLock();
  const folder = (uploadId: string): string => join(root, uploadId);

  const load = async (uploadId: string, key: string): Promise<MultipartUpload> => {
    const upload = /^[A-Za-z0-9_-]{32}$/.test(uploadId) ? await readJson<MultipartUpload>(join(folder(uploadId), "upload.json")) : undefined;
    if (upload === undefined || upload.key !== key) {
      throw new S3Error("NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.", { UploadId: uploadId });
    }
    return upload;
  };
  const listParts = async (upload: MultipartUpload): Promise<PartRecord[]> => {
    const names = (await readdir(folder(upload.uploadId))).filter((name) => /^\d+\.json$/.test(name));
    const parts = await Promise.all(names.map((name) => readJson<PartRecord>(join(folder(upload.uploadId), name))));
    return parts.filter((part): part is PartRecord => part !== undefined).sort((a, b) => a.partNumber - b.partNumber);
  };

  return {
    async create(key, { headers, checksumAlgorithm }) {
      const upload: MultipartUpload = { uploadId: randomBytes(24).toString("base64url"), key, initiated: options.now().toISOString(), headers, checksumAlgorithm };
      await mkdir(folder(upload.uploadId));
      await writeFile(join(folder(upload.uploadId), "upload.json"), JSON.stringify(upload));
      return upload;
    },
    get: load,
    putPart: (upload, partNumber, body) =>
      lock.run(upload.uploadId, async () => {
        try {
          await load(upload.uploadId, upload.key);
        } catch (error) {
          await rm(body.file, { force: true });
          throw error;
        }
        const part: PartRecord = {
          partNumber,
          size: body.size,
          etag: `"${body.md5.toString("hex")}"`,
          lastModified: options.now().toISOString(),
          crc32: body.crc32,
          checksum: body.checksum,
        };
        await rename(body.file, join(folder(upload.uploadId), `${partNumber}.part`));
        await writeFile(join(folder(upload.uploadId), `${partNumber}.json`), JSON.stringify(part));
        return part;
      }),
    listParts,
    complete: (upload, requested) =>
      lock.run(upload.uploadId, async () => {
        await load(upload.uploadId, upload.key);
        const parts = choose(await listParts(upload), requested);
        const file = options.disk.temporaryFile();
        const crc = await concatenate(parts.map((part) => join(folder(upload.uploadId), `${part.partNumber}.part`)), file);
        const md5s = Buffer.concat(parts.map((part) => Buffer.from(part.etag.slice(1, -1), "hex")));
        const metadata: ObjectMetadata = {
          size: parts.reduce((total, part) => total + part.size, 0),
          etag: `"${createHash("md5").update(md5s).digest("hex")}-${parts.length}"`,
          lastModified: options.now().toISOString(),
          crc32: crc,
          headers: upload.headers,
        };
        await options.disk.commit(upload.key, file, metadata);
        await rm(folder(upload.uploadId), { recursive: true, force: true });
        return metadata;
      }),
    abort: (upload) =>
      lock.run(upload.uploadId, async () => {
        await load(upload.uploadId, upload.key);
        await rm(folder(upload.uploadId), { recursive: true, force: true });
      }),
  };
}

/** The stored parts a completion names, checked as S3 checks them. */
function choose(stored: readonly PartRecord[], requested: readonly CompletedPart[]): PartRecord[] {
  if (requested.length === 0) throw new S3Error("MalformedXML", "You must specify at least one part.");
  if (requested.some((request, index) => index > 0 && request.partNumber <= requested[index - 1]!.partNumber)) {
    throw new S3Error("InvalidPartOrder", "The list of parts was not in ascending order. Parts must be ordered by part number.");
  }
  const byNumber = new Map(stored.map((part) => [part.partNumber, part]));
  const chosen = requested.map((request) => {
    const part = byNumber.get(request.partNumber);
    const etag = request.etag.trim().replace(/^"?(.*?)"?$/, "\"$1\"");
    const checksumsMatch = Object.entries(request.checksums).every(([algorithm, value]) => {
      const recorded = part && recordedChecksum(part, algorithm as ChecksumAlgorithm);
      return recorded === undefined || recorded === value;
    });
    if (part === undefined || part.etag !== etag || !checksumsMatch) {
      throw new S3Error("InvalidPart", "One or more of the specified parts could not be found, or its entity tag or checksum did not match.", {
        PartNumber: String(request.partNumber),
      });
    }
    return part;
  });
  chosen.slice(0, -1).forEach((part) => {
    if (part.size < MIN_PART_SIZE) {
      throw new S3Error("EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.", {
        PartNumber: String(part.partNumber),
        ProposedSize: String(part.size),
        MinSizeAllowed: String(MIN_PART_SIZE),
      });
    }
  });
  return chosen;
}

/** The checksum a part was stored with, when known: every part has a CRC-32, and perhaps the client's own algorithm. */
function recordedChecksum(part: PartRecord, algorithm: ChecksumAlgorithm): string | undefined {
  if (algorithm === "CRC32") return part.crc32;
  return part.checksum?.algorithm === algorithm ? part.checksum.value : undefined;
}

/** Copies the files one after another into `target`; returns the base64 CRC-32 of the whole. */
async function concatenate(files: readonly string[], target: string): Promise<string> {
  const output = createWriteStream(target, { flags: "wx", flush: true });
  let crc = 0;
  try {
    for (const file of files) {
      for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
        crc = crc32(chunk, crc);
        if (!output.write(chunk)) await once(output, "drain");
      }
    }
    output.end();
    await finished(output);
  } catch (error) {
    output.destroy();
    await rm(target, { force: true });
    throw error;
  }
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(crc >>> 0);
  return bytes.toString("base64");
}

async function pruneAbandoned(root: string, cutoff: number): Promise<void> {
  for (const uploadId of await readdir(root)) {
    const upload = await readJson<MultipartUpload>(join(root, uploadId, "upload.json"));
    if (upload === undefined || Date.parse(upload.initiated) < cutoff) await rm(join(root, uploadId), { recursive: true, force: true });
  }
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as T;
  } catch {
    return undefined;
  }
}
