import { Readable, pipeline } from "node:stream";
import { constants, crc32, createDeflateRaw } from "node:zlib";
import { centralHeader, dataDescriptor, endRecords, localHeader, needsZip64, type ZipEntryRecord } from "./zip-format";

/** One file of an export: its name in the archive and where its bytes are. */
export interface ArchiveEntry {
  name: string;
  key: string;
  /** The size its record states; bytes that disagree fail the export. */
  size: number;
  modified: Date;
}

/** How the archive reads an entry's bytes and reports progress. */
export interface ArchiveSource {
  open(key: string): Promise<Readable>;
  /** Called as each chunk of entry bytes goes into the archive. */
  progress(bytes: number): void;
}

/**
 * A ZIP archive of `entries`, produced as it is read: each object is streamed from the store
 * through deflate into the archive, so an export needs memory for one chunk, not one file. Fast
 * deflate (level 1): robotics logs and images are mostly compressed already, and throughput
 * matters more than a few percent of size. The stream fails, naming the entry, when an object
 * cannot be read or its size differs from its record.
 */
export function zipArchive(entries: ArchiveEntry[], source: ArchiveSource): Readable {
  return Readable.from(zipChunks(entries, source), { objectMode: false });
}

async function* zipChunks(entries: ArchiveEntry[], source: ArchiveSource): AsyncGenerator<Buffer> {
  const records: ZipEntryRecord[] = [];
  let offset = 0;
  for (const entry of entries) {
    const record: ZipEntryRecord = { name: entry.name, modified: entry.modified, crc32: 0, compressedSize: 0, size: 0, offset, zip64: needsZip64(entry.size) };
    const header = localHeader(record.name, record.modified, record.zip64);
    yield header;
    for await (const chunk of deflatedEntry(entry, record, source)) {
      record.compressedSize += chunk.length;
      yield chunk;
    }
    if (record.size !== entry.size) throw new Error(`'${entry.name}' has ${record.size} bytes but its record says ${entry.size}`);
    const descriptor = dataDescriptor(record);
    yield descriptor;
    offset += header.length + record.compressedSize + descriptor.length;
    records.push(record);
  }
  const directory = records.map(centralHeader);
  const directorySize = directory.reduce((sum, header) => sum + header.length, 0);
  yield Buffer.concat([...directory, endRecords(records.length, offset, directorySize)]);
}

/** An entry's deflated bytes; counts and checksums the plain bytes into `record` on the way. */
async function* deflatedEntry(entry: ArchiveEntry, record: ZipEntryRecord, source: ArchiveSource): AsyncGenerator<Buffer> {
  try {
    const input = await source.open(entry.key);
    const measure = async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        record.crc32 = crc32(chunk, record.crc32);
        record.size += chunk.length;
        source.progress(chunk.length);
        yield chunk;
      }
    };
    // Errors reach the loop below: pipeline destroys the deflate stream with them.
    const deflated = pipeline(input, measure, createDeflateRaw({ level: constants.Z_BEST_SPEED }), () => {});
    for await (const chunk of deflated) yield chunk as Buffer;
  } catch (error) {
    throw new Error(`'${entry.name}' could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}
