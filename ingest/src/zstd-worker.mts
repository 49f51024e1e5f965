// A worker thread of ZstdWorkers (zstd-workers.ts): zstd compression and decompression through one
// reused context each, into the buffers the main thread transfers here and gets back with the answer.
// Started from its compiled .mjs, or under the specs from this .mts through Node's type stripping:
// hence only erasable TypeScript and only `node:` imports here (types excepted); an ES module, so
// Node need not guess its module type.
import { parentPort, workerData } from "node:worker_threads";
import { constants, crc32, createZstdCompress, createZstdDecompress } from "node:zlib";
import type { ZstdCompress, ZstdDecompress } from "node:zlib";

/** What the main thread asks: `input[inputAt, inputAt + inputLength)` into `output[0, outputLength)`. */
export interface ZstdJob {
  id: number;
  kind: "compress" | "decompress";
  input: ArrayBuffer;
  inputAt: number;
  inputLength: number;
  output: ArrayBuffer;
  outputLength: number;
  /** For decompress: whether to compute the CRC-32 of the output (the chunk states one). */
  crc: boolean;
}

/** The answer: both buffers back, the bytes written at the start of `output`, or what went wrong. */
export interface ZstdJobResult {
  id: number;
  input: ArrayBuffer;
  output: ArrayBuffer;
  written: number;
  /** The CRC-32 of the output when asked for, else 0. */
  crc: number;
  error?: string;
}

/** What the main thread passes at start: the compression level of derived chunks. */
export interface ZstdWorkerData {
  level: number;
}

/** The parts of a Node zlib stream that run zstd synchronously over a caller's buffers. */
interface ZlibStreamInternals {
  _handle: {
    writeSync(flush: number, input: Uint8Array, inOffset: number, inLength: number, output: Uint8Array, outOffset: number, outLength: number): void;
    /** Ends the current frame's session, keeping the context's memory (and, for compression, losing its level). */
    reset(): void;
  };
  /** After a write: [output bytes left unused, input bytes left unread]. */
  _writeState: Uint32Array;
  errored: Error | null;
}

/**
 * Runs `flush` writes of `input` into `output` until the input is read, the output is full or
 * nothing moves; returns [bytes read, bytes written]. Node's public zstd calls make a context and
 * an output buffer per call (1.7 GB of buffers per GiB of the bench's input, freed only when V8
 * collects them, and a context's memory per chunk); the stream's handle does what they do inside,
 * but into our buffer: zlib.js's internals `_handle.writeSync` and `_writeState`, as its own
 * processChunkSync uses them in Node 24 (pinned, see README "Toolchain"). Should a later Node change
 * them, every zstd spec of the engine fails rather than anything silently misreading.
 */
function writeThrough(stream: ZlibStreamInternals, flush: number, input: Uint8Array, output: Uint8Array): [number, number] {
  const { _handle: handle, _writeState: state } = stream;
  let read = 0;
  let written = 0;
  for (;;) {
    const inputLeft = input.byteLength - read;
    const outputLeft = output.byteLength - written;
    handle.writeSync(flush, input, read, inputLeft, output, written, outputLeft);
    if (stream.errored) throw new Error(`zstd: ${stream.errored.message.slice(0, 120)}`);
    read += inputLeft - state[1]!;
    written += outputLeft - state[0]!;
    const stalled = state[1] === inputLeft && state[0] === outputLeft;
    if (stalled || read === input.byteLength || written === output.byteLength) return [read, written];
  }
}

/** A zlib stream whose errors are read from `errored` right after each write, never emitted unheard. */
function quiet<T extends ZstdCompress | ZstdDecompress>(stream: T): T {
  stream.on("error", () => undefined);
  return stream;
}

const { level } = workerData as ZstdWorkerData;
let compressor: ZstdCompress | undefined;
let decompressor: ZstdDecompress | undefined;

/**
 * One whole frame of `input` into `output` (which the caller sizes to zstd's compress bound). The
 * context is never reset: ZSTD_e_end closes the frame and the next write starts a new one with the
 * same level, where a reset would drop the level set at creation.
 */
function compress(input: Uint8Array, output: Uint8Array): number {
  compressor ??= quiet(createZstdCompress({ params: { [constants.ZSTD_c_compressionLevel]: level } }));
  const [read, written] = writeThrough(compressor as unknown as ZlibStreamInternals, constants.ZSTD_e_end, input, output);
  if (read !== input.byteLength || written === output.byteLength) throw new Error(`compressed chunk does not fit ${output.byteLength} bytes`);
  return written;
}

/**
 * One whole frame of `input` into `output`, which is one byte longer than the frame states, so a
 * frame that decompresses to more is told from one that fits.
 */
function decompress(input: Uint8Array, output: Uint8Array): number {
  decompressor ??= quiet(createZstdDecompress());
  const stream = decompressor as unknown as ZlibStreamInternals;
  stream._handle.reset(); // each chunk is its own frame: nothing carries over from the last one
  const [, written] = writeThrough(stream, constants.ZSTD_e_continue, input, output);
  if (written === output.byteLength) throw new Error(`decompresses to more than the ${output.byteLength - 1} bytes it states`);
  return written;
}

/**
 * Runs one job; a failed context is dropped, not reused. The records' CRC is computed here, beside
 * their decompression, so the main thread only compares it.
 */
function run(job: ZstdJob): ZstdJobResult {
  const { id, input, output } = job;
  const source = new Uint8Array(input, job.inputAt, job.inputLength);
  const target = new Uint8Array(output, 0, job.outputLength);
  try {
    const written = job.kind === "compress" ? compress(source, target) : decompress(source, target);
    const crc = job.crc ? crc32(target.subarray(0, written)) : 0;
    return { id, input, output, written, crc };
  } catch (error) {
    dropContext(job.kind);
    return { id, input, output, written: 0, crc: 0, error: error instanceof Error ? error.message : String(error) };
  }
}

function dropContext(kind: ZstdJob["kind"]): void {
  if (kind === "compress") {
    compressor?.close();
    compressor = undefined;
  } else {
    decompressor?.close();
    decompressor = undefined;
  }
}

parentPort?.on("message", (job: ZstdJob) => {
  const result = run(job);
  parentPort!.postMessage(result, [result.input, result.output]);
});
