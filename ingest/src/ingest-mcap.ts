import { BufferPool } from "./buffer-pool";
import { ChunkDecompressor, DERIVED_LEVEL } from "./compression";
import { McapIngestError } from "./ingest-error";
import { buildManifest } from "./manifest";
import type { IngestManifest } from "./manifest";
import { openIndex, splitIndexed } from "./read-indexed";
import { splitScanned } from "./read-scan";
import type { DerivedFileSink } from "./sink";
import type { McapSource } from "./source";
import { Splitter } from "./splitter";
import { WriteBudget } from "./write-budget";
import { defaultWorkerCount, ZstdWorkers } from "./zstd-workers";

/** Tuning of ingestMcap; the defaults suit files of any size within a 256 MB process. */
export interface IngestOptions {
  /**
   * Uncompressed size a derived chunk closes at (512 KiB). Every channel holds one open chunk, so
   * this times the channel count is resident. On bench/mcap-ingest.mjs's 1 GiB file 1 MiB chunks
   * cost as much CPU (5.8 s against 5.5 s) and 20 MB more peak RSS; smaller chunks mean more
   * messages to the zstd workers and more index records.
   */
  chunkSize?: number;
  /**
   * Derived bytes that may wait for compression and writing before reading pauses (4 MiB: eight
   * chunks, enough to keep the zstd workers busy while the disk writes). Each waiting chunk also
   * holds its compressed output, so this bounds about twice its size.
   */
  writeBudget?: number;
  /** Input chunks read and decompressed ahead of the one being split (2). */
  readAhead?: number;
  /**
   * Worker threads for zstd (the cores but one, at least one): derived chunks compress and input
   * chunks decompress there, so the main thread only splits.
   */
  zstdWorkers?: number;
}

/**
 * Splits the MCAP file `source` into one derived MCAP per channel in `sink` and describes each
 * channel (see TopicManifest). Reads through the summary's chunk index when the file has one, else
 * scans it front to back; either way memory stays bounded whatever the file's size. On any error
 * the sink is aborted, so no derived file is left, and the error is an McapIngestError naming the
 * record and offset at fault. Output is deterministic: the same file yields the same bytes.
 */
export async function ingestMcap(source: McapSource, sink: DerivedFileSink, options: IngestOptions = {}): Promise<IngestManifest> {
  const budget = new WriteBudget(options.writeBudget ?? 4 * 1024 * 1024);
  const pool = new BufferPool();
  const zstd = new ZstdWorkers(pool, options.zstdWorkers ?? defaultWorkerCount(), DERIVED_LEVEL);
  const decompressor = new ChunkDecompressor(pool, zstd);
  const splitter = new Splitter(sink, { chunkSize: options.chunkSize ?? 512 * 1024, budget, pool, zstd });
  const afterChunk = () => budget.settle();
  try {
    const index = await openIndex(source);
    if (index) await splitIndexed(index, source, splitter, { readAhead: options.readAhead ?? 2, pool, decompressor }, afterChunk);
    else await splitScanned(source, splitter, { pool, decompressor }, afterChunk);
    const channels = await splitter.finish();
    const total = channels.reduce((sum, { totals }) => sum + totals.messageCount, 0);
    if (index?.statistics && index.statistics.messageCount !== BigInt(total)) {
      throw new McapIngestError("Statistics", undefined, `the summary counts ${index.statistics.messageCount} messages, the chunks hold ${total}`);
    }
    const manifest = buildManifest(channels);
    await sink.commit();
    return manifest;
  } catch (error) {
    await splitter.abandon();
    await sink.abort();
    throw error instanceof McapIngestError ? error : new McapIngestError("file", undefined, error instanceof Error ? error.message : String(error), { cause: error });
  } finally {
    await zstd.close();
  }
}
