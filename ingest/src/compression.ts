import { constants, crc32, zstdCompress, zstdDecompress } from "node:zlib";
import { promisify } from "node:util";
import decompressLz4 from "@foxglove/wasm-lz4";

const zstdCompressAsync = promisify(zstdCompress);
const zstdDecompressAsync = promisify(zstdDecompress);

/**
 * The chunk compressions an input file may use: none, `zstd` (Node's own zlib, as ROS 2 bags and
 * the Python and TypeScript MCAP writers default to) and `lz4` (the other compression the MCAP
 * libraries write). zstd runs on libuv's thread pool, so the next chunks decompress while this one
 * is split. Returns the decompressed bytes, or throws naming what went wrong.
 */
export async function decompressChunk(compression: string, data: Uint8Array, uncompressedSize: number): Promise<Uint8Array> {
  if (compression === "") return data;
  if (compression === "zstd") return zstdDecompressAsync(data, { maxOutputLength: Math.max(uncompressedSize, 1), chunkSize: oneOutputBuffer(uncompressedSize) });
  if (compression === "lz4") {
    await decompressLz4.isLoaded;
    return decompressLz4(data, uncompressedSize);
  }
  throw new Error(`unsupported chunk compression ${JSON.stringify(compression.slice(0, 32))}`);
}

/**
 * Derived chunks are zstd at level -7, one of its fast levels: on the benchmark's input it costs
 * 30% less CPU than level -3 and 57% less than level 1, for files 1% and 6% larger (1.68x against
 * 1.69x and 1.78x; bench/mcap-ingest.mjs, parts phase). The original file is kept, so the derived
 * copy's size matters less than the time to make it. It runs on libuv's thread pool, so compressing
 * overlaps reading the next chunk; any zstd decoder reads it (the Python `mcap` reader included).
 */
export const DERIVED_COMPRESSION = "zstd";
const DERIVED_LEVEL = -7;

/** Compresses one derived chunk off the main thread. */
export function compressChunk(data: Uint8Array): Promise<Buffer> {
  // Ending the frame on the first write puts all output in one piece; left to zlib's final flush,
  // it comes in two that zlib then concatenates into a third buffer.
  const options = { params: { [constants.ZSTD_c_compressionLevel]: DERIVED_LEVEL }, flush: constants.ZSTD_e_end, chunkSize: oneOutputBuffer(data.byteLength) };
  return zstdCompressAsync(data, options);
}

/**
 * zlib's `chunkSize` for an output of at most `size` bytes: one buffer. The default, 16 KiB pieces,
 * costs a trip to JavaScript and a concatenation each (a third of the ingestion's time when
 * profiled), and an output filling its buffer exactly makes zlib allocate another: hence the + 1.
 */
function oneOutputBuffer(size: number): number {
  return Math.max(size + 1, 64);
}

/** CRC-32 as MCAP uses it (zlib's), continuing from `previous` when given. */
export function mcapCrc32(data: Uint8Array, previous = 0): number {
  return crc32(data, previous);
}
