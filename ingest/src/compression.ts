import { crc32 } from "node:zlib";
import decompressLz4 from "@foxglove/wasm-lz4";
import type { BufferPool } from "./buffer-pool";
import type { ZstdWorkers } from "./zstd-workers";

/**
 * A decompressed chunk's records, the pooled buffer they are in (to give back once split), and the
 * CRC still to check against them: 0 once checked (zstd chunks: beside their decompression, off
 * the main thread) or when the chunk states none.
 */
export interface Decompressed {
  records: Uint8Array;
  pooled: Uint8Array | undefined;
  crcToCheck: number;
}

/** What a chunk whose records fail their CRC fails with, wherever the CRC is computed. */
export const CRC_MISMATCH = "the CRC of its decompressed records does not match (the file is corrupt)";

/**
 * Decompresses input chunks in the compressions a file may use: none, `zstd` (as ROS 2 bags and
 * the Python and TypeScript MCAP writers default to) and `lz4` (the other compression the MCAP
 * libraries write). zstd runs on the ZstdWorkers, one reused context into buffers from the pool, so
 * decompressing a file allocates nothing per chunk and the main thread only splits.
 */
export class ChunkDecompressor {
  constructor(
    private readonly pool: BufferPool,
    private readonly zstd: ZstdWorkers,
  ) {}

  /**
   * The records of a chunk stated to decompress to `uncompressedSize` bytes with CRC `crc`, or
   * throws naming what went wrong. `data` is not kept: it may be reused once this returns a promise.
   */
  async decompress(compression: string, data: Uint8Array, uncompressedSize: number, crc: number): Promise<Decompressed> {
    if (compression === "") return { records: data, pooled: undefined, crcToCheck: crc };
    if (compression === "zstd") return this.decompressZstd(data, uncompressedSize, crc);
    if (compression === "lz4") {
      await decompressLz4.isLoaded;
      return { records: decompressLz4(data, uncompressedSize), pooled: undefined, crcToCheck: crc };
    }
    throw new Error(`unsupported chunk compression ${JSON.stringify(compression.slice(0, 32))}`);
  }

  /** Gives a chunk's buffer back once its records are split. */
  release(decompressed: Decompressed): void {
    if (decompressed.pooled) this.pool.give(decompressed.pooled);
  }

  /**
   * The frame is copied into a pooled buffer of its own to be transferred to a worker (the caller's
   * may be a view into a read block): 1 GB of copying per GiB of input, a few hundredths of a second.
   * The output is one byte longer than stated, so a frame that decompresses to more is told from one
   * that fits.
   */
  private async decompressZstd(data: Uint8Array, uncompressedSize: number, crc: number): Promise<Decompressed> {
    const input = this.pool.takeAtLeast(data.byteLength);
    input.set(data);
    const done = await this.zstd.decompress(input, 0, data.byteLength, this.pool.takeAtLeast(uncompressedSize + 1), uncompressedSize + 1, crc !== 0);
    if (crc !== 0 && done.crc !== crc) {
      this.pool.give(done.output);
      throw new Error(CRC_MISMATCH);
    }
    return { records: done.output.subarray(0, done.written), pooled: done.output, crcToCheck: 0 };
  }
}

/**
 * Derived chunks are zstd at level -7, one of its fast levels: on the benchmark's input it costs
 * 30% less CPU than level -3 and 55% less than level 1, for files 1% and 6% larger (1.68x against
 * 1.70x and 1.78x; bench/mcap-ingest.mjs, parts phase). The original file is kept, so the derived
 * copy's size matters less than the time to make it. It runs on the ZstdWorkers, so compressing
 * overlaps splitting; any zstd decoder reads it (the Python `mcap` reader included).
 */
export const DERIVED_COMPRESSION = "zstd";
export const DERIVED_LEVEL = -7;

/** zstd's ZSTD_COMPRESSBOUND: the most `size` bytes can compress to, so one output buffer always fits. */
export function zstdCompressBound(size: number): number {
  const small = 128 * 1024;
  return size + (size >>> 8) + (size < small ? (small - size) >>> 11 : 0);
}

/** CRC-32 as MCAP uses it (zlib's), continuing from `previous` when given. */
export function mcapCrc32(data: Uint8Array, previous = 0): number {
  return crc32(data, previous);
}
