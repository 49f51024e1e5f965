import { availableParallelism } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { BufferPool } from "./buffer-pool";
import type { ZstdJob, ZstdJobResult, ZstdWorkerData } from "./zstd-worker.mjs" with { "resolution-mode": "import" };

/** A finished job: the output buffer (the caller gives it back to the pool), the bytes written, the CRC asked for. */
export interface ZstdDone {
  output: Buffer;
  written: number;
  crc: number;
}

/** The worker's entry beside this file: compiled .mjs from dist, .mts under the specs (see zstd-worker.mts). */
const WORKER_FILE = path.join(__dirname, `zstd-worker${path.extname(__filename) === ".ts" ? ".mts" : ".mjs"}`);

/** One worker per core but the one the main thread splits on (at least one). */
export function defaultWorkerCount(): number {
  return Math.max(1, availableParallelism() - 1);
}

interface Slot {
  worker: Worker;
  pending: Map<number, { resolve: (done: ZstdDone) => void; reject: (error: Error) => void }>;
}

/**
 * zstd off the main thread: up to `count` worker threads, each with one reused compression and one
 * reused decompression context, working on buffers from the pool that are transferred to the worker
 * and back (never copied), so the hot path allocates nothing per chunk and memory is the pool's
 * bounded buffers. How many jobs are in flight is the callers' bound: the write budget for derived
 * chunks, the read-ahead for input chunks. A job goes to the worker with the fewest pending jobs;
 * a worker is kept referenced only while it has some, so an idle pool never holds the process open.
 */
export class ZstdWorkers {
  private readonly slots: Slot[] = [];
  private nextId = 1;

  constructor(
    private readonly pool: BufferPool,
    private readonly count: number,
    private readonly level: number,
  ) {}

  /**
   * Compresses `input[0, length)` into `output` (at least zstd's compress bound); both are whole
   * buffers from the pool, handed over: the input goes back to the pool when the job ends.
   */
  compress(input: Uint8Array, length: number, output: Uint8Array): Promise<ZstdDone> {
    return this.submit("compress", input, 0, length, output, output.byteLength, false);
  }

  /**
   * Decompresses the frame `input[at, at + length)` into `output[0, outputLength)`, with the
   * output's CRC-32 when `crc` is true; buffers handed over as for compress.
   */
  decompress(input: Uint8Array, at: number, length: number, output: Uint8Array, outputLength: number, crc: boolean): Promise<ZstdDone> {
    return this.submit("decompress", input, at, length, output, outputLength, crc);
  }

  /** Stops the workers; jobs still pending fail. */
  async close(): Promise<void> {
    await Promise.all(this.slots.splice(0).map(({ worker }) => worker.terminate()));
  }

  private submit(kind: ZstdJob["kind"], input: Uint8Array, inputAt: number, inputLength: number, output: Uint8Array, outputLength: number, crc: boolean): Promise<ZstdDone> {
    const memory = { input: wholeBuffer(input), output: wholeBuffer(output) };
    const slot = this.idlest();
    const id = this.nextId++;
    const job: ZstdJob = { id, kind, ...memory, inputAt, inputLength, outputLength, crc };
    return new Promise<ZstdDone>((resolve, reject) => {
      if (slot.pending.size === 0) slot.worker.ref();
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage(job, [job.input, job.output]);
    });
  }

  /** The worker with the fewest pending jobs, starting another while fewer than `count` run and none is idle. */
  private idlest(): Slot {
    const idlest = this.slots.reduce<Slot | undefined>((best, slot) => (!best || slot.pending.size < best.pending.size ? slot : best), undefined);
    if (idlest && (idlest.pending.size === 0 || this.slots.length >= this.count)) return idlest;
    return this.start();
  }

  private start(): Slot {
    const workerData: ZstdWorkerData = { level: this.level };
    const slot: Slot = { worker: new Worker(WORKER_FILE, { workerData }), pending: new Map() };
    slot.worker.on("message", (result: ZstdJobResult) => this.settle(slot, result));
    slot.worker.on("error", (error) => this.fail(slot, error));
    slot.worker.on("exit", (code) => this.fail(slot, new Error(`zstd worker stopped (exit code ${code})`)));
    slot.worker.unref();
    this.slots.push(slot);
    return slot;
  }

  private settle(slot: Slot, { id, input, output, written, crc, error }: ZstdJobResult): void {
    const job = slot.pending.get(id)!;
    slot.pending.delete(id);
    if (slot.pending.size === 0) slot.worker.unref();
    this.pool.give(Buffer.from(input));
    if (error === undefined) return job.resolve({ output: Buffer.from(output), written, crc });
    this.pool.give(Buffer.from(output));
    job.reject(new Error(error));
  }

  /** A worker that failed or stopped: its pending jobs fail, and a later job starts another. */
  private fail(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    for (const { reject } of slot.pending.values()) reject(error);
    slot.pending.clear();
  }
}

/**
 * The memory of `bytes`, which must be all of it: transferring detaches the whole ArrayBuffer, so a
 * view into a larger one (a read block, Node's shared pool of small Buffers) must never get here.
 */
function wholeBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength || !(bytes.buffer instanceof ArrayBuffer)) {
    throw new Error("zstd workers take whole buffers of their own (from the pool), not views");
  }
  return bytes.buffer;
}
