import { McapIndexedReader } from "@mcap/core";
import type { ChunkIndex } from "@mcap/core";
import type { ChunkDecompressor, Decompressed } from "./compression";
import type { BufferPool } from "./buffer-pool";
import { McapIngestError } from "./ingest-error";
import { contentLengthAt, Opcode, parseChunkHeader, RECORD_PREFIX } from "./records";
import type { McapSource } from "./source";
import type { Splitter } from "./splitter";

/**
 * The file's summary when it has one that lists chunks, else undefined (the caller scans the
 * file instead): no footer or summary, a summary that fails its CRC, or an unchunked file.
 * A truncated file lands here too, and the scan then names where it ends.
 */
export async function openIndex(source: McapSource): Promise<McapIndexedReader | undefined> {
  const reader = await McapIndexedReader.Initialize({ readable: source }).catch(() => undefined);
  return reader && reader.chunkIndexes.length > 0 ? reader : undefined;
}

/** How an indexed file is read: chunks ahead, the buffers they are read into, their decompression. */
export interface IndexedReading {
  readAhead: number;
  pool: BufferPool;
  decompressor: ChunkDecompressor;
}

interface LoadedChunk {
  offset: bigint;
  decompressed: Decompressed;
  /** The pooled buffer the chunk was read into, given back once its records are split (uncompressed records are a view of it). */
  readBuffer: Uint8Array;
}

/**
 * Splits an indexed file: schemas and channels from the summary, then each chunk the chunk
 * indexes list, in file order, reading and decompressing (on the zstd workers) `readAhead` chunks
 * ahead of the one being split, so the main thread only splits. The message index records and
 * anything else between chunks are never read.
 */
export async function splitIndexed(reader: McapIndexedReader, source: McapSource, splitter: Splitter, reading: IndexedReading, afterChunk: () => Promise<void>): Promise<void> {
  splitter.profile = reader.header.profile;
  for (const schema of reader.schemasById.values()) splitter.addSchema(schema, undefined);
  for (const channel of reader.channelsById.values()) splitter.addChannel(channel, undefined);
  const chunks = [...reader.chunkIndexes].sort((a, b) => (a.chunkStartOffset < b.chunkStartOffset ? -1 : 1));
  const loads: Promise<LoadedChunk>[] = [];
  let next = 0;
  const startLoad = (): void => {
    const load = loadChunk(source, chunks[next++]!, reading);
    load.catch(() => undefined); // awaited below in order; this keeps a later failure from being "unhandled" meanwhile
    loads.push(load);
  };
  while (loads.length < reading.readAhead && next < chunks.length) startLoad();
  while (loads.length > 0) {
    const chunk = await loads.shift()!;
    if (next < chunks.length) startLoad();
    splitter.splitChunk(chunk.decompressed.records, chunk.decompressed.crcToCheck, chunk.offset);
    reading.decompressor.release(chunk.decompressed);
    reading.pool.give(chunk.readBuffer);
    await afterChunk();
  }
}

/** Reads the chunk `index` lists into a pooled buffer and decompresses it (see ChunkDecompressor). */
async function loadChunk(source: McapSource, index: ChunkIndex, { pool, decompressor }: IndexedReading): Promise<LoadedChunk> {
  const offset = index.chunkStartOffset;
  try {
    const readBuffer = pool.takeAtLeast(Number(index.chunkLength));
    const bytes = await source.read(offset, index.chunkLength, readBuffer);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes[0] !== Opcode.CHUNK) throw new Error(`the chunk index points at opcode 0x${bytes[0]?.toString(16)}, not a chunk`);
    if (RECORD_PREFIX + contentLengthAt(view, 1) !== bytes.byteLength) throw new Error("the record's length differs from the chunk index's");
    const header = parseChunkHeader(bytes.subarray(RECORD_PREFIX));
    const decompressed = await decompressor.decompress(header.compression, header.records, header.uncompressedSize, header.uncompressedCrc);
    if (decompressed.records.byteLength !== header.uncompressedSize) throw new Error(`decompressed to ${decompressed.records.byteLength} bytes, not the ${header.uncompressedSize} it states`);
    return { offset, decompressed, readBuffer };
  } catch (error) {
    throw new McapIngestError("Chunk", offset, error instanceof Error ? error.message : String(error), { cause: error });
  }
}
