import { createHash, randomBytes } from "node:crypto";
import { createReadStream, type ReadStream, type Stats } from "node:fs";
import { mkdir, open, readFile, rename, rm, rmdir, stat, writeFile, type FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import { crc32 } from "node:zlib";
import { createKeyedLock } from "./keyed-lock";
import { walkKeys, type ListedEntry } from "./walk-keys";
import { S3Error } from "./s3-error";

/** What the sidecar of an object records. */
export interface ObjectMetadata {
  size: number;
  /** Quoted, as in HTTP: `"<md5 hex>"`, or `"<md5 of part md5s>-<parts>"` after a multipart upload. */
  etag: string;
  lastModified: string;
  /** Base64 CRC-32 of the whole object, answered as a full-object checksum on whole-object downloads. */
  crc32: string;
  /** Headers replayed on download: content-type, content-disposition, x-amz-meta-*, and the like. */
  headers: Record<string, string>;
  /** The data file's inode when the sidecar was written: a crash between the two writes shows as a mismatch. */
  inode?: number;
}

/** An object opened for reading: its metadata, and either one stream over `[start, end]` (inclusive) or `close()`. */
export interface OpenedObject {
  metadata: ObjectMetadata;
  /** The stream closes the file when it ends. */
  read(range?: { start: number; end: number }): ReadStream;
  close(): Promise<void>;
}

/** The bytes of one bucket on local disk. */
export interface DiskStore {
  /** A fresh path in the store's temporary folder, on the same file system as the objects (so renames are atomic). */
  temporaryFile(): string;
  /** Moves a complete temporary file into place as `key` and records its metadata. */
  commit(key: string, file: string, metadata: ObjectMetadata): Promise<void>;
  stat(key: string): Promise<ObjectMetadata | undefined>;
  open(key: string): Promise<OpenedObject | undefined>;
  /** Removes an object; absent keys are not an error. */
  remove(key: string): Promise<void>;
  /** Objects (and, with a `/` delimiter, folders as common prefixes) in key order. */
  list(options: { prefix: string; delimiter?: string; after?: string }): AsyncGenerator<ListedEntry>;
}

/**
 * Objects live under `<dataDir>/objects/<bucket>/<key>`, their metadata in a parallel tree under
 * `<dataDir>/object-metadata/<bucket>/<key>.json` (so no key can collide with a sidecar), temporary files
 * under `<dataDir>/object-tmp` (emptied at start). Writes go to a temporary file, are flushed, then renamed
 * into place: readers see the old object or the new one, never a part.
 */
export async function createDiskStore(options: { dataDir: string; bucket: string }): Promise<DiskStore> {
  const objectsRoot = join(options.dataDir, "objects", options.bucket);
  const metadataRoot = join(options.dataDir, "object-metadata", options.bucket);
  const temporaryRoot = join(options.dataDir, "object-tmp");
  // Leftovers of writes interrupted by a crash are never renamed into place.
  await rm(temporaryRoot, { recursive: true, force: true });
  await Promise.all([objectsRoot, metadataRoot, temporaryRoot].map((dir) => mkdir(dir, { recursive: true })));
  const lock = createKeyedLock();
  const objectPath = (key: string): string => join(objectsRoot, ...key.split("/"));
  const metadataPath = (key: string): string => `${join(metadataRoot, ...key.split("/"))}.json`;
  const temporaryFile = (): string => join(temporaryRoot, randomBytes(12).toString("hex"));

  const writeMetadata = async (key: string, metadata: ObjectMetadata): Promise<void> => {
    const path = metadataPath(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = temporaryFile();
    await writeFile(temporary, JSON.stringify(metadata), { flush: true });
    await rename(temporary, path);
  };

  /** Metadata of an open file: the sidecar, or recomputed when a crash left it missing or stale. */
  const describe = async (key: string, handle: FileHandle): Promise<ObjectMetadata> => {
    const stats = await handle.stat();
    const recorded = await readMetadata(metadataPath(key));
    if (recorded !== undefined && recorded.size === stats.size && recorded.inode === stats.ino) return recorded;
    const repaired = await digestFile(handle, stats, recorded?.headers ?? {});
    await writeMetadata(key, repaired);
    return repaired;
  };

  const openObject = (key: string): Promise<OpenedObject | undefined> =>
    // Under the key's lock, so that the file opened and the sidecar read belong to the same write.
    lock.run(key, async () => {
      const handle = await openIfExists(objectPath(key));
      if (handle === undefined) return undefined;
      try {
        return opened(await describe(key, handle), handle);
      } catch (error) {
        await handle.close();
        throw error;
      }
    });

  return {
    temporaryFile,
    commit: (key, file, metadata) =>
      lock.run(key, async () => {
        try {
          await moveIntoPlace(file, objectPath(key));
          const { ino } = await stat(objectPath(key));
          await writeMetadata(key, { ...metadata, inode: ino });
        } catch (error) {
          await rm(file, { force: true });
          throw translateFsError(error);
        }
      }),
    async stat(key) {
      const object = await openObject(key);
      await object?.close();
      return object?.metadata;
    },
    open: openObject,
    remove: (key) =>
      lock.run(key, async () => {
        await rm(objectPath(key), { force: true });
        await rm(metadataPath(key), { force: true });
        await pruneEmptyFolders(dirname(objectPath(key)), objectsRoot);
        await pruneEmptyFolders(dirname(metadataPath(key)), metadataRoot);
      }),
    list: ({ prefix, delimiter, after }) =>
      walkKeys(objectsRoot, { prefix, foldersAsPrefixes: delimiter === "/", ...(after !== undefined && { after }) }),
  };
}

function opened(metadata: ObjectMetadata, handle: FileHandle): OpenedObject {
  let closing: Promise<void> | undefined;
  return {
    metadata,
    read: (range) => {
      closing = Promise.resolve();
      return createReadStream("", { fd: handle, autoClose: true, start: range?.start ?? 0, ...(range && { end: range.end }) });
    },
    close: () => (closing ??= handle.close()),
  };
}

async function moveIntoPlace(file: string, target: string): Promise<void> {
  // A concurrent delete may prune the freshly made folder before the rename: make it again, a few times.
  for (let attempt = 1; ; attempt++) {
    await mkdir(dirname(target), { recursive: true });
    try {
      await rename(file, target);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt === 3) throw error;
    }
  }
}

async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    const handle = await open(path, "r");
    if ((await handle.stat()).isFile()) return handle;
    await handle.close();
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return undefined;
    throw error;
  }
}

async function readMetadata(path: string): Promise<ObjectMetadata | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as ObjectMetadata;
  } catch {
    return undefined;
  }
}

async function digestFile(handle: FileHandle, stats: Stats, headers: Record<string, string>): Promise<ObjectMetadata> {
  const md5 = createHash("md5");
  let crc = 0;
  for await (const chunk of createReadStream("", { fd: handle, autoClose: false, start: 0 }) as AsyncIterable<Buffer>) {
    md5.update(chunk);
    crc = crc32(chunk, crc);
  }
  const crcBytes = Buffer.alloc(4);
  crcBytes.writeUInt32BE(crc >>> 0);
  return {
    size: stats.size,
    etag: `"${md5.digest("hex")}"`,
    lastModified: stats.mtime.toISOString(),
    crc32: crcBytes.toString("base64"),
    headers,
    inode: stats.ino,
  };
}

async function pruneEmptyFolders(folder: string, root: string): Promise<void> {
  for (let current = folder; current.startsWith(root) && current !== root; current = dirname(current)) {
    try {
      await rmdir(current);
    } catch {
      return;
    }
  }
}

/** File-system refusals that a key can cause, as S3 errors; anything else stays an internal error. */
function translateFsError(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENAMETOOLONG") return new S3Error("KeyTooLongError", "A segment of your key is too long for the file system.");
  if (code === "ENOTDIR" || code === "EISDIR" || code === "EEXIST" || code === "ENOTEMPTY") {
    return new S3Error("InvalidArgument", "The key conflicts with an existing key: one cannot be both an object and a folder of others.");
  }
  return error;
}
