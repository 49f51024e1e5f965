import { constants, createZstdDecompress, crc32, zstdCompress } from "node:zlib";
import type { ZstdDecompress } from "node:zlib";
import { promisify } from "node:util";
import decompressLz4 from "@foxglove/wasm-lz4";
import type { BufferPool } from "./buffer-pool";

const zstdCompressAsync = promisify(zstdCompress);

/** A decompressed chunk's records, and the pooled buffer they are in (to give back once split). */
export interface Decompressed {
  records: Uint8Array;
  pooled: Uint8Array | undefined;
}

/**
 * Decompresses input chunks in the compressions a file may use: none, `zstd` (as ROS 2 bags and
 * the Python and TypeScript MCAP writers default to) and `lz4` (the other compression the MCAP
 * libraries write). zstd goes through one reused context into buffers from the pool (see
 * ZstdIntoBuffer), so decompressing a file allocates nothing per chunk.
 */
export class ChunkDecompressor {
  private zstd: ZstdIntoBuffer | undefined;

  constructor(private readonly pool: BufferPool) {}

  /** The records of a chunk stated to decompress to `uncompressedSize` bytes, or throws naming what went wrong. */
  async decompress(compression: string, data: Uint8Array, uncompressedSize: number): Promise<Decompressed> {
    if (compression === "") return { records: data, pooled: undefined };
    if (compression === "zstd") return this.decompressZstd(data, uncompressedSize);
    if (compression === "lz4") {
      await decompressLz4.isLoaded;
      return { records: decompressLz4(data, uncompressedSize), pooled: undefined };
    }
    throw new Error(`unsupported chunk compression ${JSON.stringify(compression.slice(0, 32))}`);
  }

  /** Gives a chunk's buffer back once its records are split. */
  release(decompressed: Decompressed): void {
    if (decompressed.pooled) this.pool.give(decompressed.pooled);
  }

  close(): void {
    this.zstd?.close();
  }

  private decompressZstd(data: Uint8Array, uncompressedSize: number): Decompressed {
    // One byte more than stated, so a frame that decompresses to more is told from one that fits.
    const pooled = this.pool.takeAtLeast(uncompressedSize + 1);
    try {
      this.zstd ??= new ZstdIntoBuffer();
      return { records: this.zstd.decompress(data, pooled.subarray(0, uncompressedSize + 1)), pooled };
    } catch (error) {
      this.pool.give(pooled);
      this.zstd?.close();
      this.zstd = undefined; // a failed context is not reused
      throw error;
    }
  }
}

/** The parts of a Node zlib stream that decompress synchronously into a caller's buffer. */
interface ZlibStreamInternals {
  _handle: {
    writeSync(flush: number, input: Uint8Array, inOffset: number, inLength: number, output: Uint8Array, outOffset: number, outLength: number): void;
    /** Ends the current frame's session, keeping the context's memory. */
    reset(): void;
  };
  /** After a write: [output bytes left unused, input bytes left unread]. */
  _writeState: Uint32Array;
}

/**
 * zstd decompression into the caller's buffer through one context. Node's public zstd calls make a
 * context and an output buffer per call: on the 1 GiB bench file that was 1.7 GB of buffers that
 * only V8's garbage collector frees, and a context's memory per chunk; through one context into a
 * pooled buffer, decompression costs a quarter less CPU (bench/mcap-ingest.mjs, parts phase). The stream's handle does what zstdDecompressSync does inside,
 * but into our buffer (zlib.js's internals, `_handle.writeSync` and `_writeState`, as its own
 * processChunkSync uses them in Node 24; should a later Node change them, every zstd spec here
 * fails rather than anything silently misreading).
 * It runs on the calling thread: the main thread, while libuv's threads compress derived chunks.
 */
class ZstdIntoBuffer {
  private readonly stream: ZstdDecompress = createZstdDecompress();
  private readonly internals = this.stream as unknown as ZlibStreamInternals;

  constructor() {
    this.stream.on("error", () => undefined); // read from stream.errored right after each write
  }

  /** Decompresses one whole frame into `output`; returns the view of it that the frame filled. */
  decompress(input: Uint8Array, output: Uint8Array): Uint8Array {
    const { _handle: handle, _writeState: state } = this.internals;
    handle.reset(); // each chunk is its own frame: nothing carries over from the last one
    let read = 0;
    let written = 0;
    for (;;) {
      const inputLeft = input.byteLength - read;
      const outputLeft = output.byteLength - written;
      handle.writeSync(constants.ZSTD_e_continue, input, read, inputLeft, output, written, outputLeft);
      if (this.stream.errored) throw new Error(`zstd: ${this.stream.errored.message.slice(0, 120)}`);
      read += inputLeft - state[1]!;
      written += outputLeft - state[0]!;
      const stalled = state[1] === inputLeft && state[0] === outputLeft;
      if (stalled || read === input.byteLength || written === output.byteLength) break;
    }
    if (written === output.byteLength) throw new Error(`decompresses to more than the ${output.byteLength - 1} bytes it states`);
    return output.subarray(0, written);
  }

  close(): void {
    this.stream.close();
  }
}

/**
 * Derived chunks are zstd at level -7, one of its fast levels: on the benchmark's input it costs
 * 30% less CPU than level -3 and 55% less than level 1, for files 1% and 6% larger (1.68x against
 * 1.70x and 1.78x; bench/mcap-ingest.mjs, parts phase). The original file is kept, so the derived
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
