import { mkdir, mkdtemp, open, rename, rm } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";

/** One derived file being written: buffers are appended in call order. */
export interface DerivedFile {
  write(buffers: Uint8Array[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where derived files go. Nothing is visible until `commit()`, and `abort()` removes whatever was
 * written, so a failed ingestion leaves no derived file behind.
 */
export interface DerivedFileSink {
  create(name: string): Promise<DerivedFile>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * A sink writing into a fresh temporary directory beside `outDir`; `commit()` renames it to
 * `outDir`, replacing an earlier ingestion's directory whole, so re-ingesting never mixes old and
 * new files. The parent directory is created when missing.
 */
export function createDirectorySink(outDir: string): DerivedFileSink {
  const target = path.resolve(outDir);
  let staging: Promise<string> | undefined;
  const stagingDir = (): Promise<string> => {
    staging ??= mkdir(path.dirname(target), { recursive: true }).then(() => mkdtemp(`${target}.partial-`));
    return staging;
  };
  return {
    async create(name) {
      if (name !== path.basename(name)) throw new Error(`derived file name must not contain a directory`);
      return fileOf(await open(path.join(await stagingDir(), name), "w"));
    },
    async commit() {
      const dir = await stagingDir();
      const previous = `${dir}.previous`;
      const hadPrevious = await rename(target, previous).then(() => true, () => false);
      await rename(dir, target);
      if (hadPrevious) await rm(previous, { recursive: true, force: true });
    },
    async abort() {
      if (staging) await rm(await staging, { recursive: true, force: true });
    },
  };
}

function fileOf(handle: FileHandle): DerivedFile {
  return {
    async write(buffers) {
      const expected = buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0);
      const { bytesWritten } = await handle.writev(buffers);
      if (bytesWritten !== expected) throw new Error(`short write: ${bytesWritten} of ${expected} bytes`);
    },
    close: () => handle.close(),
  };
}
