import type { Channel, Schema } from "@mcap/core";

/** MCAP opcodes this package reads or writes (the MCAP specification's table). */
export const Opcode = {
  HEADER: 0x01,
  FOOTER: 0x02,
  SCHEMA: 0x03,
  CHANNEL: 0x04,
  MESSAGE: 0x05,
  CHUNK: 0x06,
  MESSAGE_INDEX: 0x07,
} as const;

/** Bytes before a record's content: the opcode and the u64 content length. */
export const RECORD_PREFIX = 9;

/** Where a Message record's channel id (u16) sits, after the prefix. */
export const MESSAGE_CHANNEL_ID_AT = RECORD_PREFIX;
/** Where a Message record's log time (u64) sits, after the channel id and the u32 sequence. */
export const MESSAGE_LOG_TIME_AT = RECORD_PREFIX + 2 + 4;

/** The fields of a Chunk record before its compressed records. */
export interface ChunkHeader {
  uncompressedSize: number;
  uncompressedCrc: number;
  compression: string;
  records: Uint8Array;
}

const text = new TextDecoder("utf-8", { fatal: true });

/**
 * A bounds-checked little-endian cursor over one record's content: every read past the end
 * throws, so a record whose lengths lie fails with a message instead of reading its neighbours.
 */
export class RecordCursor {
  private readonly view: DataView;
  offset = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(length: number): number {
    if (length < 0 || this.offset + length > this.bytes.byteLength) throw new Error(`a length field runs past the record's end`);
    const at = this.offset;
    this.offset += length;
    return at;
  }

  u16(): number {
    return this.view.getUint16(this.need(2), true);
  }

  u32(): number {
    return this.view.getUint32(this.need(4), true);
  }

  u64(): bigint {
    return this.view.getBigUint64(this.need(8), true);
  }

  /** A u64 that must fit a JS number (lengths and sizes of in-memory buffers). */
  length64(): number {
    const value = this.u64();
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`a length field is too large`);
    return Number(value);
  }

  bytesOf(length: number): Uint8Array {
    const at = this.need(length);
    return this.bytes.subarray(at, at + length);
  }

  string(): string {
    return text.decode(this.bytesOf(this.u32()));
  }

  stringMap(): Map<string, string> {
    const length = this.u32();
    const end = this.offset + length;
    const map = new Map<string, string>();
    while (this.offset < end) map.set(this.string(), this.string());
    if (this.offset !== end) throw new Error(`a map's length does not match its entries`);
    return map;
  }
}

/** Parses a Schema record's content. */
export function parseSchema(content: Uint8Array): Schema {
  const cursor = new RecordCursor(content);
  const id = cursor.u16();
  const name = cursor.string();
  const encoding = cursor.string();
  // A copy (Buffer's slice() would be a view): the record's buffer is reused for the next read.
  const data = new Uint8Array(cursor.bytesOf(cursor.u32()));
  return { id, name, encoding, data };
}

/** Parses a Channel record's content. */
export function parseChannel(content: Uint8Array): Channel {
  const cursor = new RecordCursor(content);
  const id = cursor.u16();
  const schemaId = cursor.u16();
  const topic = cursor.string();
  const messageEncoding = cursor.string();
  const metadata = cursor.stringMap();
  return { id, schemaId, topic, messageEncoding, metadata };
}

/** Parses a Chunk record's content up to its records, which stay a view into `content`. */
export function parseChunkHeader(content: Uint8Array): ChunkHeader {
  const cursor = new RecordCursor(content);
  cursor.u64(); // message start time: recomputed per channel
  cursor.u64(); // message end time
  const uncompressedSize = cursor.length64();
  const uncompressedCrc = cursor.u32();
  const compression = cursor.string();
  const records = cursor.bytesOf(cursor.length64());
  return { uncompressedSize, uncompressedCrc, compression, records };
}

/**
 * Reads a record's u64 content length at `at` (the byte after its opcode) as a number, or throws.
 * Two 32-bit reads rather than getBigUint64: this runs once per message, and a BigInt each was
 * measurable garbage.
 */
export function contentLengthAt(view: DataView, at: number): number {
  const high = view.getUint32(at + 4, true);
  if (high >= 0x200000) throw new Error(`a record length is too large`);
  return high * 2 ** 32 + view.getUint32(at, true);
}
