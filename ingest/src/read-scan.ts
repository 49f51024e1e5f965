import { MCAP_MAGIC } from "@mcap/core";
import type { ChunkDecompressor } from "./compression";
import type { BufferPool } from "./buffer-pool";
import { McapIngestError } from "./ingest-error";
import { contentLengthAt, Opcode, parseChannel, parseChunkHeader, parseSchema, RecordCursor, RECORD_PREFIX } from "./records";
import type { McapSource } from "./source";
import { asBuffer } from "./splitter";
import type { Splitter } from "./splitter";

const BLOCK = 4 * 1024 * 1024;
const RECORD_NAMES: Record<number, string> = { 1: "Header", 2: "Footer", 3: "Schema", 4: "Channel", 5: "Message", 6: "Chunk", 15: "DataEnd" };

/**
 * Splits a file without a usable summary by reading it front to back in 4 MiB blocks: every
 * record is framed here, so an error names the offset of the record at fault, and records the
 * split does not need (attachments, indexes, metadata) are skipped without being read. The file
 * must end with a Footer and the closing magic, else it is reported as truncated.
 */
export async function splitScanned(source: McapSource, splitter: Splitter, reading: { pool: BufferPool; decompressor: ChunkDecompressor }, afterChunk: () => Promise<void>): Promise<void> {
  const input = new BlockReader(source, Number(await source.size()), reading.pool);
  await expectMagic(input, "start");
  for (;;) {
    const offset = input.offset;
    if (input.remaining() < RECORD_PREFIX) throw new McapIngestError("file", BigInt(offset), `truncated: the file ends at byte ${input.size} without a Footer record`);
    const prefix = await input.peek(RECORD_PREFIX);
    const opcode = prefix[0]!;
    const length = RECORD_PREFIX + contentLengthAt(new DataView(prefix.buffer, prefix.byteOffset, RECORD_PREFIX), 1);
    const name = RECORD_NAMES[opcode] ?? `opcode 0x${opcode.toString(16)}`;
    if (length > input.remaining()) throw new McapIngestError(name, BigInt(offset), `truncated: the record is ${length} bytes long, the file ends ${input.remaining()} bytes after its start`);
    if (opcode === Opcode.FOOTER) {
      input.skip(length);
      return expectMagic(input, "end");
    }
    if (!NEEDED.has(opcode)) {
      input.skip(length);
      continue;
    }
    const record = await input.take(length);
    try {
      await splitRecord(opcode, record, BigInt(offset), splitter, reading.decompressor);
    } catch (error) {
      if (error instanceof McapIngestError) throw error;
      throw new McapIngestError(name, BigInt(offset), error instanceof Error ? error.message : String(error), { cause: error });
    }
    if (opcode === Opcode.CHUNK) await afterChunk();
  }
}

const NEEDED = new Set<number>([Opcode.HEADER, Opcode.SCHEMA, Opcode.CHANNEL, Opcode.MESSAGE, Opcode.CHUNK]);

async function splitRecord(opcode: number, record: Uint8Array, offset: bigint, splitter: Splitter, decompressor: ChunkDecompressor): Promise<void> {
  const content = record.subarray(RECORD_PREFIX);
  switch (opcode) {
    case Opcode.HEADER:
      splitter.profile = new RecordCursor(content).string();
      return;
    case Opcode.SCHEMA:
      return splitter.addSchema(parseSchema(content), offset);
    case Opcode.CHANNEL:
      return splitter.addChannel(parseChannel(content), offset);
    case Opcode.MESSAGE:
      return splitter.message(asBuffer(record), 0, record.byteLength, offset);
    default: {
      const header = parseChunkHeader(content);
      const decompressed = await decompressor.decompress(header.compression, header.records, header.uncompressedSize, header.uncompressedCrc);
      const { records } = decompressed;
      if (records.byteLength !== header.uncompressedSize) throw new Error(`decompressed to ${records.byteLength} bytes, not the ${header.uncompressedSize} it states`);
      splitter.splitChunk(records, decompressed.crcToCheck, offset);
      decompressor.release(decompressed);
    }
  }
}

async function expectMagic(input: BlockReader, where: "start" | "end"): Promise<void> {
  const offset = BigInt(input.offset);
  const name = where === "start" ? "magic" : "closing magic";
  if (input.remaining() < MCAP_MAGIC.length) throw new McapIngestError(name, offset, `truncated: the file ends before the ${name}`);
  const magic = await input.take(MCAP_MAGIC.length);
  if (!MCAP_MAGIC.every((byte, i) => magic[i] === byte)) throw new McapIngestError(name, offset, "not MCAP: the magic bytes differ");
  if (where === "end" && input.remaining() !== 0) throw new McapIngestError(name, offset, `${input.remaining()} bytes follow the closing magic`);
}

/**
 * Sequential reads through one block, so small records cost no read call each; the block's buffer
 * is reused while it is large enough (a record longer than it gets a larger one from the pool).
 */
class BlockReader {
  offset = 0;
  private buffer: Uint8Array = new Uint8Array(0);
  private block: Uint8Array = new Uint8Array(0);
  private blockStart = 0;

  constructor(
    private readonly source: McapSource,
    readonly size: number,
    private readonly pool: BufferPool,
  ) {}

  remaining(): number {
    return this.size - this.offset;
  }

  async peek(length: number): Promise<Uint8Array> {
    const at = this.offset - this.blockStart;
    if (at < 0 || at + length > this.block.byteLength) {
      const wanted = Math.min(Math.max(length, BLOCK), this.remaining());
      if (wanted > this.buffer.byteLength) {
        this.pool.give(this.buffer);
        this.buffer = this.pool.takeAtLeast(wanted);
      }
      this.block = await this.source.read(BigInt(this.offset), BigInt(wanted), this.buffer);
      this.blockStart = this.offset;
    }
    const start = this.offset - this.blockStart;
    return this.block.subarray(start, start + length);
  }

  /** The next `length` bytes, valid until the next call. */
  async take(length: number): Promise<Uint8Array> {
    const bytes = await this.peek(length);
    this.offset += length;
    return bytes;
  }

  skip(length: number): void {
    this.offset += length;
  }
}
