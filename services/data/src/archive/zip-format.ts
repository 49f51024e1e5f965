/**
 * The records of a streamed ZIP archive (APPNOTE 6.3): each entry is a local header, deflated
 * bytes and a data descriptor (sizes and CRC are only known after the bytes), then a central
 * directory and its end record. ZIP64 fields appear only where a value may not fit 32 bits, so
 * small archives stay readable by the oldest tools.
 *
 * Kept rather than replaced by yazl (3.3.1, the maintained streaming writer checked): yazl never puts
 * a ZIP64 extra field in a local header, so a streaming reader cannot tell that an entry over 4 GiB
 * has 8-byte sizes in its data descriptor, and it writes DOS times in the host's time zone.
 */

const U32_MAX = 0xffffffff;
const U16_MAX = 0xffff;
/** Version 4.5: ZIP64; 2.0: deflate. */
const VERSION_ZIP64 = 45;
const VERSION_DEFLATE = 20;
/** Made by Unix (3), so that the external attributes carry a Unix file mode. */
const MADE_BY = (3 << 8) | VERSION_ZIP64;
/** Bit 3: sizes and CRC follow the data; bit 11: names are UTF-8. */
const FLAGS = 0x0008 | 0x0800;
const METHOD_DEFLATE = 8;
/** A regular file readable by everyone (`-rw-r--r--`), in the high half of the attributes. */
const FILE_ATTRIBUTES = (0o100644 << 16) >>> 0;
const DOS_EPOCH = Date.UTC(1980, 0, 1);
const DOS_END = Date.UTC(2107, 11, 31, 23, 59, 58);

/** What the central directory needs to know of one written entry. */
export interface ZipEntryRecord {
  name: string;
  modified: Date;
  crc32: number;
  compressedSize: number;
  size: number;
  /** Offset of the entry's local header from the start of the archive. */
  offset: number;
  /** Whether the local header announced ZIP64 sizes. */
  zip64: boolean;
}

/**
 * Whether an entry of `size` bytes needs ZIP64 sizes. Decided before the bytes are deflated, so with
 * room for deflate's worst-case growth on incompressible data (a few bytes per 16 KiB block).
 */
export function needsZip64(size: number): boolean {
  return size * 1.05 >= U32_MAX;
}

/** The local header that opens an entry; sizes and CRC come later in its data descriptor. */
export function localHeader(name: string, modified: Date, zip64: boolean): Buffer {
  const nameBytes = Buffer.from(name, "utf8");
  // With ZIP64 the header carries zero sizes in an extra field, which tells readers that the data
  // descriptor uses 8-byte sizes.
  const extra = zip64 ? zip64Extra([0, 0]) : Buffer.alloc(0);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(zip64 ? VERSION_ZIP64 : VERSION_DEFLATE, 4);
  header.writeUInt16LE(FLAGS, 6);
  header.writeUInt16LE(METHOD_DEFLATE, 8);
  writeDosTime(header, 10, modified);
  header.writeUInt32LE(0, 14);
  header.writeUInt32LE(zip64 ? U32_MAX : 0, 18);
  header.writeUInt32LE(zip64 ? U32_MAX : 0, 22);
  header.writeUInt16LE(nameBytes.length, 26);
  header.writeUInt16LE(extra.length, 28);
  return Buffer.concat([header, nameBytes, extra]);
}

/** The data descriptor that closes an entry: CRC and sizes, 8-byte sizes for ZIP64 entries. */
export function dataDescriptor(entry: Pick<ZipEntryRecord, "crc32" | "compressedSize" | "size" | "zip64">): Buffer {
  if (!entry.zip64 && (entry.compressedSize >= U32_MAX || entry.size >= U32_MAX)) {
    throw new RangeError("an entry outgrew the 4 GiB its header allowed for");
  }
  const out = Buffer.alloc(entry.zip64 ? 24 : 16);
  out.writeUInt32LE(0x08074b50, 0);
  out.writeUInt32LE(entry.crc32, 4);
  if (entry.zip64) {
    out.writeBigUInt64LE(BigInt(entry.compressedSize), 8);
    out.writeBigUInt64LE(BigInt(entry.size), 16);
  } else {
    out.writeUInt32LE(entry.compressedSize, 8);
    out.writeUInt32LE(entry.size, 12);
  }
  return out;
}

/** One entry's central directory header. */
export function centralHeader(entry: ZipEntryRecord): Buffer {
  const nameBytes = Buffer.from(entry.name, "utf8");
  const farOffset = entry.offset >= U32_MAX;
  // ZIP64 extra values appear in this order, each only when its 32-bit field is 0xFFFFFFFF.
  const extraValues = [...(entry.zip64 ? [entry.size, entry.compressedSize] : []), ...(farOffset ? [entry.offset] : [])];
  const extra = extraValues.length > 0 ? zip64Extra(extraValues) : Buffer.alloc(0);
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(MADE_BY, 4);
  header.writeUInt16LE(extraValues.length > 0 ? VERSION_ZIP64 : VERSION_DEFLATE, 6);
  header.writeUInt16LE(FLAGS, 8);
  header.writeUInt16LE(METHOD_DEFLATE, 10);
  writeDosTime(header, 12, entry.modified);
  header.writeUInt32LE(entry.crc32, 16);
  header.writeUInt32LE(entry.zip64 ? U32_MAX : entry.compressedSize, 20);
  header.writeUInt32LE(entry.zip64 ? U32_MAX : entry.size, 24);
  header.writeUInt16LE(nameBytes.length, 28);
  header.writeUInt16LE(extra.length, 30);
  header.writeUInt32LE(FILE_ATTRIBUTES, 38);
  header.writeUInt32LE(farOffset ? U32_MAX : entry.offset, 42);
  return Buffer.concat([header, nameBytes, extra]);
}

/**
 * The records after the central directory: the end record, preceded by the ZIP64 end record and
 * its locator when the entry count, directory size or directory offset does not fit.
 */
export function endRecords(entryCount: number, directoryOffset: number, directorySize: number): Buffer {
  const zip64 = entryCount >= U16_MAX || directoryOffset >= U32_MAX || directorySize >= U32_MAX;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Math.min(entryCount, U16_MAX), 8);
  end.writeUInt16LE(Math.min(entryCount, U16_MAX), 10);
  end.writeUInt32LE(Math.min(directorySize, U32_MAX), 12);
  end.writeUInt32LE(Math.min(directoryOffset, U32_MAX), 16);
  if (!zip64) return end;
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(MADE_BY, 12);
  record.writeUInt16LE(VERSION_ZIP64, 14);
  record.writeBigUInt64LE(BigInt(entryCount), 24);
  record.writeBigUInt64LE(BigInt(entryCount), 32);
  record.writeBigUInt64LE(BigInt(directorySize), 40);
  record.writeBigUInt64LE(BigInt(directoryOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(directoryOffset + directorySize), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([record, locator, end]);
}

function zip64Extra(values: number[]): Buffer {
  const out = Buffer.alloc(4 + 8 * values.length);
  out.writeUInt16LE(0x0001, 0);
  out.writeUInt16LE(8 * values.length, 2);
  values.forEach((value, i) => out.writeBigUInt64LE(BigInt(value), 4 + 8 * i));
  return out;
}

/** MS-DOS time and date, in UTC (ZIP has no time zone); DOS dates run from 1980 to 2107. */
function writeDosTime(buffer: Buffer, offset: number, date: Date): void {
  const clamped = new Date(Math.min(Math.max(date.getTime(), DOS_EPOCH), DOS_END));
  const time = (clamped.getUTCHours() << 11) | (clamped.getUTCMinutes() << 5) | Math.floor(clamped.getUTCSeconds() / 2);
  const day = ((clamped.getUTCFullYear() - 1980) << 9) | ((clamped.getUTCMonth() + 1) << 5) | clamped.getUTCDate();
  buffer.writeUInt16LE(time, offset);
  buffer.writeUInt16LE(day, offset + 2);
}
