import { randomBytes } from "node:crypto";
import { constants, crc32, zstdCompressSync, zstdDecompressSync } from "node:zlib";
import { BufferPool } from "./buffer-pool";
import { zstdCompressBound } from "./compression";
import { ZstdWorkers } from "./zstd-workers";

/** A pool that counts what is given back to it. */
class CountingPool extends BufferPool {
  given = 0;
  override give(buffer: Uint8Array): void {
    this.given += 1;
    super.give(buffer);
  }
}

const LEVEL = -7;

/** `size` bytes that compress some: a repeating pattern with noise in it. */
function records(size: number): Buffer {
  const bytes = Buffer.alloc(size, "sensor reading 0123456789 ");
  randomBytes(size / 4).copy(bytes, size / 2);
  return bytes;
}

/** `bytes` copied into a whole buffer of the pool, as the engine hands its chunks over. */
function pooled(pool: BufferPool, bytes: Uint8Array, size = bytes.byteLength): Uint8Array {
  const buffer = pool.take(size);
  buffer.set(bytes);
  return buffer;
}

let pool: CountingPool;
let workers: ZstdWorkers;
beforeEach(() => {
  pool = new CountingPool();
  workers = new ZstdWorkers(pool, 2, LEVEL);
});
afterEach(() => workers.close());

test("compresses as zlib does at the level given, and decompresses back with the CRC asked for", async () => {
  const data = records(256 * 1024);
  const expected = zstdCompressSync(data, { params: { [constants.ZSTD_c_compressionLevel]: LEVEL } });
  const compressed = await workers.compress(pooled(pool, data), data.byteLength, pool.take(zstdCompressBound(data.byteLength) + 1));
  expect(Buffer.from(compressed.output.subarray(0, compressed.written))).toEqual(expected);
  expect(pool.given).toBe(1); // the input went back to the pool; the output is the caller's until written

  const frame = compressed.output.subarray(0, compressed.written);
  const decompressed = await workers.decompress(pooled(pool, frame, 512 * 1024), 0, frame.byteLength, pool.take(data.byteLength + 1), data.byteLength + 1, true);
  expect(Buffer.from(decompressed.output.subarray(0, decompressed.written))).toEqual(data);
  expect(decompressed.crc).toBe(crc32(data));
});

test("many jobs at once over two workers each come back with their own result", async () => {
  const chunks = Array.from({ length: 24 }, (_, i) => records(64 * 1024 + i * 1024));
  const results = await Promise.all(chunks.map((chunk) => workers.compress(pooled(pool, chunk), chunk.byteLength, pool.take(zstdCompressBound(chunk.byteLength) + 1))));
  results.forEach((result, i) => expect(zstdDecompressSync(result.output.subarray(0, result.written))).toEqual(chunks[i]));
  expect(pool.given).toBe(chunks.length);
});

test("a frame that does not decompress fails with zstd's reason, and both buffers go back to the pool", async () => {
  const garbage = Buffer.alloc(1024, 7);
  const failed = workers.decompress(pooled(pool, garbage), 0, garbage.byteLength, pool.take(4096), 4096, false);
  await expect(failed).rejects.toThrow(/^zstd: /);
  expect(pool.given).toBe(2);
  // the worker made a fresh context: the next frame decompresses
  const data = records(8 * 1024);
  const frame = zstdCompressSync(data);
  const next = await workers.decompress(pooled(pool, frame), 0, frame.byteLength, pool.take(data.byteLength + 1), data.byteLength + 1, false);
  expect(Buffer.from(next.output.subarray(0, next.written))).toEqual(data);
});

test("a view into a larger buffer is refused, and the memory stays the caller's", () => {
  const block = Buffer.allocUnsafeSlow(4096).fill(1);
  expect(() => workers.compress(block.subarray(1024), 1024, pool.take(2048))).toThrow("zstd workers take whole buffers of their own");
  expect(block.byteLength).toBe(4096); // not transferred, not detached
  expect(block[2000]).toBe(1);
});
