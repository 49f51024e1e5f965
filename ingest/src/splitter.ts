import type { Channel, Schema } from "@mcap/core";
import { ChannelWriter } from "./channel-writer";
import type { ChannelTotals } from "./channel-writer";
import { CRC_MISMATCH, mcapCrc32 } from "./compression";
import { McapIngestError } from "./ingest-error";
import { contentLengthAt, MESSAGE_CHANNEL_ID_AT, Opcode, parseChannel, parseSchema, RECORD_PREFIX } from "./records";
import type { DerivedFile, DerivedFileSink } from "./sink";
import type { BufferPool } from "./buffer-pool";
import type { WriteBudget } from "./write-budget";
import type { ZstdWorkers } from "./zstd-workers";

/** Options of a Splitter: the derived chunk size, the shared write budget, buffer pool and zstd workers. */
export interface SplitterOptions {
  chunkSize: number;
  budget: WriteBudget;
  pool: BufferPool;
  zstd: ZstdWorkers;
}

/** One channel that carried messages: its definition and what its derived file holds. */
export interface SplitChannel {
  channel: Channel;
  schema: Schema | undefined;
  file: string;
  totals: ChannelTotals;
}

const MESSAGE_MIN_CONTENT = 2 + 4 + 8 + 8;

/**
 * Routes Message records to one ChannelWriter per channel, created on the channel's first
 * message (a channel without messages gets no derived file). Schema and Channel records are
 * checked as the MCAP specification requires: a channel names a known schema, and a redefinition
 * of an id must be identical.
 */
export class Splitter {
  profile = "";
  private readonly schemas = new Map<number, Schema>();
  private readonly channels = new Map<number, Channel>();
  private readonly writers: (ChannelWriter | undefined)[] = [];

  constructor(
    private readonly sink: DerivedFileSink,
    private readonly options: SplitterOptions,
  ) {}

  /** Registers a Schema record (id 0 is reserved for "no schema"). */
  addSchema(schema: Schema, offset: bigint | undefined): void {
    const known = this.schemas.get(schema.id);
    if (schema.id === 0) throw new McapIngestError("Schema", offset, "schema id 0 is reserved");
    if (known && !sameSchema(known, schema)) throw new McapIngestError("Schema", offset, `schema ${schema.id} is redefined differently`);
    this.schemas.set(schema.id, schema);
  }

  /** Registers a Channel record; its schema must already be known. */
  addChannel(channel: Channel, offset: bigint | undefined): void {
    if (channel.schemaId !== 0 && !this.schemas.has(channel.schemaId)) {
      throw new McapIngestError("Channel", offset, `channel ${channel.id} names schema ${channel.schemaId}, which no earlier Schema record defines`);
    }
    const known = this.channels.get(channel.id);
    if (known && !sameChannel(known, channel)) throw new McapIngestError("Channel", offset, `channel ${channel.id} is redefined differently`);
    this.channels.set(channel.id, channel);
  }

  /** Copies the Message record `bytes[at, at + length)` to its channel's derived file. */
  message(bytes: Buffer, at: number, length: number, offset: bigint): void {
    if (length < RECORD_PREFIX + MESSAGE_MIN_CONTENT) throw new McapIngestError("Message", offset, "record is shorter than a message's fields");
    const channelId = bytes[at + MESSAGE_CHANNEL_ID_AT]! | (bytes[at + MESSAGE_CHANNEL_ID_AT + 1]! << 8);
    const writer = this.writers[channelId] ?? this.open(channelId, offset);
    writer.append(bytes, at, length);
  }

  /**
   * Splits a decompressed chunk's records (checked against `crc` unless it is 0): messages are
   * copied, schemas and channels registered, anything else inside a chunk refused.
   */
  splitChunk(chunkRecords: Uint8Array, crc: number, offset: bigint): void {
    if (crc !== 0 && mcapCrc32(chunkRecords) !== crc) throw new McapIngestError("Chunk", offset, CRC_MISMATCH);
    const records = asBuffer(chunkRecords);
    const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
    const where = (at: number, detail: string) => new McapIngestError("Chunk", offset, `record at byte ${at} of its records: ${detail}`);
    for (let at = 0; at < records.byteLength; ) {
      if (records.byteLength - at < RECORD_PREFIX) throw where(at, "truncated record prefix");
      const opcode = records[at]!;
      const end = at + RECORD_PREFIX + contentLengthAt(view, at + 1);
      if (end > records.byteLength) throw where(at, "record runs past the chunk's end");
      if (opcode === Opcode.MESSAGE) this.message(records, at, end - at, offset);
      else this.chunkRecord(opcode, records.subarray(at + RECORD_PREFIX, end), (detail) => where(at, detail), offset);
      at = end;
    }
  }

  /** Finishes every derived file; returns the channels that carried messages, by channel id. */
  async finish(): Promise<SplitChannel[]> {
    const split: SplitChannel[] = [];
    for (const [id, writer] of this.writers.entries()) {
      if (!writer) continue;
      const channel = this.channels.get(id)!;
      split.push({ channel, schema: this.schemas.get(channel.schemaId), file: derivedFileName(id), totals: await writer.finish() });
    }
    return split;
  }

  /** After a failure: waits for queued writes and closes every file, so the sink can be removed cleanly. */
  async abandon(): Promise<void> {
    await Promise.all(this.writers.map((writer) => writer?.abandon()));
  }

  private chunkRecord(opcode: number, content: Uint8Array, where: (detail: string) => Error, offset: bigint): void {
    try {
      if (opcode === Opcode.SCHEMA) this.addSchema(parseSchema(content), offset);
      else if (opcode === Opcode.CHANNEL) this.addChannel(parseChannel(content), offset);
      else if (opcode < 0x80) throw where(`opcode 0x${opcode.toString(16)} is not allowed inside a chunk`);
    } catch (error) {
      if (error instanceof McapIngestError) throw error;
      throw where(error instanceof Error ? error.message : String(error));
    }
  }

  private open(channelId: number, offset: bigint): ChannelWriter {
    const channel = this.channels.get(channelId);
    if (!channel) throw new McapIngestError("Message", offset, `message on channel ${channelId}, which no earlier Channel record defines`);
    const file = lazyFile(this.sink, derivedFileName(channelId));
    const writer = new ChannelWriter(file, this.schemas.get(channel.schemaId), channel, { ...this.options, profile: this.profile });
    this.writers[channelId] = writer;
    return writer;
  }
}

/** `bytes` as a Buffer (the same memory), for Buffer.copy: see ChannelWriter.append. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The derived file of a channel: named by channel id, as topic names are not file names. */
function derivedFileName(channelId: number): string {
  return `channel-${channelId}.mcap`;
}

/** A derived file created in the sink at its first write, so the hot path never waits for an open. */
function lazyFile(sink: DerivedFileSink, name: string): DerivedFile {
  let file: Promise<DerivedFile> | undefined;
  let closed: Promise<void> | undefined;
  return {
    write: async (buffers) => (await (file ??= sink.create(name))).write(buffers),
    close: () => (closed ??= file ? file.then((opened) => opened.close()) : Promise.resolve()),
  };
}

function sameSchema(a: Schema, b: Schema): boolean {
  return a.name === b.name && a.encoding === b.encoding && Buffer.compare(a.data, b.data) === 0;
}

function sameChannel(a: Channel, b: Channel): boolean {
  const sameMetadata = a.metadata.size === b.metadata.size && [...a.metadata].every(([key, value]) => b.metadata.get(key) === value);
  return a.schemaId === b.schemaId && a.topic === b.topic && a.messageEncoding === b.messageEncoding && sameMetadata;
}
