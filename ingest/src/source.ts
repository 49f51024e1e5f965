import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";

/**
 * Random access to the MCAP file being ingested (the shape of `@mcap/core`'s IReadable, plus
 * `close`). Reads are bounded by the records asked for, so a multi-GiB file never sits in memory.
 */
export interface McapSource {
  size(): Promise<bigint>;
  /**
   * The `length` bytes at `offset`. Given `into` (at least `length` bytes long), they are read into
   * it and a view of it returned, so a caller reading chunk after chunk reuses its buffers instead
   * of leaving one per read for the garbage collector.
   */
  read(offset: bigint, length: bigint, into?: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** Opens a local file as a McapSource. */
export async function openFileSource(file: string): Promise<McapSource> {
  const handle: FileHandle = await open(file, "r");
  const { size } = await handle.stat();
  return {
    size: () => Promise.resolve(BigInt(size)),
    async read(offset, length, into) {
      const buffer = into ? into.subarray(0, Number(length)) : Buffer.allocUnsafe(Number(length));
      let filled = 0;
      while (filled < buffer.byteLength) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.byteLength - filled, Number(offset) + filled);
        if (bytesRead === 0) throw new Error(`file ends at byte ${Number(offset) + filled}, before the ${length} bytes asked for at ${offset}`);
        filled += bytesRead;
      }
      return buffer;
    },
    close: () => handle.close(),
  };
}
