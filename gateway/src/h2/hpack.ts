// HPACK (RFC 7541) for the gateway's HTTP/2 client: a decoder that keeps one connection's dynamic
// table, and a stateless encoder.
import { HUFFMAN_CODE_LENGTHS, HUFFMAN_CODES, HUFFMAN_EOS_CODE, HUFFMAN_EOS_LENGTH, STATIC_TABLE } from "./hpack-tables";

/** One header field; names are lowercase. */
export type HeaderField = readonly [name: string, value: string];

/** A malformed header block: the connection must end with COMPRESSION_ERROR (RFC 9113 §4.3). */
export class HpackError extends Error {
  override name = "HpackError";
}

/** Per-entry overhead in the dynamic table's size accounting (§4.1). */
const ENTRY_OVERHEAD = 32;
/** Integers above this (lengths, indices, sizes) exceed any limit we could honour (§5.1). */
const MAX_INTEGER = 0x7fffffff;
/** Continuation octets needed for `MAX_INTEGER`; more are only zero padding, which we refuse. */
const MAX_CONTINUATION_OCTETS = 5;

/**
 * A buffer reused across calls, so that coding allocates little beyond its results. One needed
 * larger than `MAX_KEPT` is used once and dropped, not to hold one huge header's memory for good.
 */
class Scratch {
  private static readonly MAX_KEPT = 64 * 1024;
  private buffer = Buffer.allocUnsafe(4096);

  /** A buffer of at least `size` octets, valid until the next call. */
  get(size: number): Buffer {
    if (size <= this.buffer.length) return this.buffer;
    const buffer = Buffer.allocUnsafe(size);
    if (size <= Scratch.MAX_KEPT) this.buffer = buffer;
    return buffer;
  }
}

// --- Huffman decoding (§5.2) ---------------------------------------------------------------------

const EOS = 256;
/** Set in a transition entry when a symbol completes within the nibble (bits 8-15 hold it). */
const EMITS = 1 << 16;
/** Set in a transition entry when the nibble completes EOS, which must not appear in data. */
const FAILS = 1 << 17;

/**
 * The code tree: `children[node * 2 + bit]` is an internal node id (> 0; the root is 0) or `~symbol`
 * for a leaf. The code is complete, so every slot is filled.
 */
function buildHuffmanTree(): Int16Array {
  const children = new Int16Array(2 * EOS);
  let nodes = 1;
  const insert = (symbol: number, code: number, length: number) => {
    let node = 0;
    for (let bit = length - 1; bit > 0; bit--) {
      const slot = node * 2 + ((code >>> bit) & 1);
      if (children[slot] === 0) children[slot] = nodes++;
      node = children[slot];
    }
    children[node * 2 + (code & 1)] = ~symbol;
  };
  for (let symbol = 0; symbol < EOS; symbol++) insert(symbol, HUFFMAN_CODES[symbol], HUFFMAN_CODE_LENGTHS[symbol]);
  insert(EOS, HUFFMAN_EOS_CODE, HUFFMAN_EOS_LENGTH);
  return children;
}

/**
 * A state machine over nibbles, so decoding costs two table lookups per octet instead of a walk per
 * bit. A state is an internal node (the bits of an unfinished code); `transitions[state * 16 +
 * nibble]` packs the next state (bits 0-7) with EMITS/FAILS. No code is shorter than 5 bits, so a
 * nibble completes at most one symbol.
 */
function buildHuffmanTransitions(children: Int16Array): Uint32Array {
  const transitions = new Uint32Array(EOS * 16);
  for (let state = 0; state < EOS; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let entry = 0;
      for (let bit = 3; bit >= 0; bit--) {
        const child = children[node * 2 + ((nibble >> bit) & 1)];
        if (child > 0) {
          node = child;
          continue;
        }
        const symbol = ~child;
        entry |= symbol === EOS ? FAILS : EMITS | (symbol << 8);
        node = 0;
      }
      transitions[state * 16 + nibble] = entry | node;
    }
  }
  return transitions;
}

/** States where input may end: the root, or up to 7 one-bits into a code (padding, a prefix of EOS). */
function buildHuffmanAccepting(children: Int16Array): Uint8Array {
  const accepting = new Uint8Array(EOS);
  for (let node = 0, bits = 0; bits <= 7; bits++, node = children[node * 2 + 1]) accepting[node] = 1;
  return accepting;
}

const HUFFMAN_TREE = buildHuffmanTree();
const HUFFMAN_TRANSITIONS = buildHuffmanTransitions(HUFFMAN_TREE);
const HUFFMAN_ACCEPTING = buildHuffmanAccepting(HUFFMAN_TREE);

const huffmanScratch = new Scratch();

/** Decodes the Huffman-coded `src[start, end)` into `out`; returns the octet count. */
function huffmanDecode(src: Uint8Array, start: number, end: number, out: Buffer): number {
  let length = 0;
  let state = 0;
  for (let i = start; i < end; i++) {
    const octet = src[i];
    let entry = HUFFMAN_TRANSITIONS[(state << 4) | (octet >> 4)];
    if (entry & FAILS) throw new HpackError("EOS in Huffman-coded string");
    if (entry & EMITS) out[length++] = (entry >> 8) & 0xff;
    entry = HUFFMAN_TRANSITIONS[((entry & 0xff) << 4) | (octet & 0xf)];
    if (entry & FAILS) throw new HpackError("EOS in Huffman-coded string");
    if (entry & EMITS) out[length++] = (entry >> 8) & 0xff;
    state = entry & 0xff;
  }
  if (!HUFFMAN_ACCEPTING[state]) throw new HpackError("invalid Huffman padding");
  return length;
}

// --- Decoder -------------------------------------------------------------------------------------

interface TableEntry {
  readonly field: HeaderField;
  /** The name's length on the wire, which UTF-8 replacement characters may make differ from the string's. */
  readonly nameOctets: number;
  readonly size: number;
}

/** The static table as table entries (its names are ASCII, so octets are string lengths). */
const STATIC_ENTRIES: readonly TableEntry[] = STATIC_TABLE.map((field) => ({
  field,
  nameOctets: field[0].length,
  size: field[0].length + field[1].length + ENTRY_OVERHEAD,
}));

/** The dynamic table (§2.3.2): a ring of entries, grown by doubling, evicted from the oldest end. */
class DynamicTable {
  private ring: (TableEntry | undefined)[] = new Array<TableEntry | undefined>(8);
  private oldest = 0;
  private size = 0;
  length = 0;

  constructor(private maxSize: number) {}

  /** `index` 1 is the newest entry; the caller checks it against `length`. */
  get(index: number): TableEntry {
    return this.ring[(this.oldest + this.length - index) & (this.ring.length - 1)]!;
  }

  add(field: HeaderField, nameOctets: number, valueOctets: number): void {
    const size = nameOctets + valueOctets + ENTRY_OVERHEAD;
    // An entry larger than the table empties it and is not added (§4.4).
    this.evictTo(this.maxSize - size);
    if (size > this.maxSize) return;
    if (this.length === this.ring.length) this.grow();
    this.ring[(this.oldest + this.length) & (this.ring.length - 1)] = { field, nameOctets, size };
    this.length++;
    this.size += size;
  }

  resize(maxSize: number): void {
    this.maxSize = maxSize;
    this.evictTo(maxSize);
  }

  private evictTo(size: number): void {
    while (this.length > 0 && this.size > size) {
      this.size -= this.get(this.length).size;
      this.ring[this.oldest] = undefined;
      this.oldest = (this.oldest + 1) & (this.ring.length - 1);
      this.length--;
    }
  }

  private grow(): void {
    const ring = new Array<TableEntry | undefined>(this.ring.length * 2);
    for (let i = 0; i < this.length; i++) ring[i] = this.get(this.length - i);
    this.ring = ring;
    this.oldest = 0;
  }
}

const EMPTY = Buffer.alloc(0);

/** Decodes header blocks of one connection (keeps the dynamic table between blocks). */
export class HpackDecoder {
  private readonly table: DynamicTable;
  private block: Buffer = EMPTY;
  private pos = 0;
  /** Wire length of the string `readString` last returned. */
  private stringOctets = 0;

  /** `maxTableSize`: the SETTINGS_HEADER_TABLE_SIZE we advertised (default 4096); the peer's dynamic table size updates may not exceed it. */
  constructor(private readonly maxTableSize = 4096) {
    this.table = new DynamicTable(maxTableSize);
  }

  /** Decodes one complete header block (all HEADERS+CONTINUATION fragments joined); throws HpackError. */
  decode(block: Uint8Array): HeaderField[] {
    this.block = Buffer.isBuffer(block) ? block : Buffer.from(block.buffer, block.byteOffset, block.byteLength);
    this.pos = 0;
    const fields: HeaderField[] = [];
    try {
      while (this.pos < this.block.length) {
        const first = this.block[this.pos];
        if (first & 0x80) fields.push(this.lookup(this.readInteger(7)).field);
        else if (first & 0x40) fields.push(this.readLiteral(6, true));
        else if (first & 0x20) this.readSizeUpdate(fields.length);
        else fields.push(this.readLiteral(4, false));
      }
    } finally {
      // Not to keep the caller's frame buffers alive between blocks.
      this.block = EMPTY;
    }
    return fields;
  }

  /** Static and dynamic tables share one index space (§2.3.3). */
  private lookup(index: number): TableEntry {
    if (index === 0) throw new HpackError("index 0");
    if (index <= STATIC_TABLE.length) return STATIC_ENTRIES[index - 1];
    if (index - STATIC_TABLE.length > this.table.length) throw new HpackError(`index ${index} is past the tables`);
    return this.table.get(index - STATIC_TABLE.length);
  }

  /** A literal field (§6.2); both never-indexed and without-indexing leave the table alone. */
  private readLiteral(prefixBits: number, addToTable: boolean): HeaderField {
    const nameIndex = this.readInteger(prefixBits);
    const indexed = nameIndex === 0 ? undefined : this.lookup(nameIndex);
    const name = indexed ? indexed.field[0] : this.readString();
    const nameOctets = indexed ? indexed.nameOctets : this.stringOctets;
    const field: HeaderField = [name, this.readString()];
    if (addToTable) this.table.add(field, nameOctets, this.stringOctets);
    return field;
  }

  /** §6.3; an update is only valid before the block's first field (§4.2). */
  private readSizeUpdate(fieldsSoFar: number): void {
    if (fieldsSoFar > 0) throw new HpackError("dynamic table size update after a header field");
    const size = this.readInteger(5);
    if (size > this.maxTableSize) throw new HpackError(`dynamic table size ${size} exceeds ${this.maxTableSize}`);
    this.table.resize(size);
  }

  /** An integer with an N-bit prefix (§5.1); the current octet exists. */
  private readInteger(prefixBits: number): number {
    const max = (1 << prefixBits) - 1;
    const value = this.block[this.pos++] & max;
    return value < max ? value : this.readIntegerTail(value);
  }

  private readIntegerTail(prefix: number): number {
    let value = prefix;
    for (let i = 0, scale = 1; i < MAX_CONTINUATION_OCTETS; i++, scale *= 128) {
      if (this.pos >= this.block.length) throw new HpackError("truncated integer");
      const octet = this.block[this.pos++];
      value += (octet & 0x7f) * scale;
      if ((octet & 0x80) === 0) {
        if (value > MAX_INTEGER) throw new HpackError("integer overflow");
        return value;
      }
    }
    throw new HpackError("integer overflow");
  }

  /** A string literal (§5.2); sets `stringOctets`. */
  private readString(): string {
    if (this.pos >= this.block.length) throw new HpackError("truncated string");
    const huffman = (this.block[this.pos] & 0x80) !== 0;
    const length = this.readInteger(7);
    const start = this.pos;
    const end = start + length;
    if (end > this.block.length) throw new HpackError("truncated string");
    this.pos = end;
    if (!huffman) {
      this.stringOctets = length;
      return this.block.toString("utf8", start, end);
    }
    // Every code is at least 5 bits long, which bounds the output.
    const out = huffmanScratch.get(Math.floor((length * 8) / 5));
    this.stringOctets = huffmanDecode(this.block, start, end, out);
    return out.toString("utf8", 0, this.stringOctets);
  }
}

// --- Encoder -------------------------------------------------------------------------------------

interface StaticName {
  /** The first index with this name. */
  readonly index: number;
  readonly indexByValue: ReadonlyMap<string, number>;
}

function buildStaticNames(): ReadonlyMap<string, StaticName> {
  const names = new Map<string, { index: number; indexByValue: Map<string, number> }>();
  STATIC_TABLE.forEach(([name, value], i) => {
    let entry = names.get(name);
    if (!entry) names.set(name, (entry = { index: i + 1, indexByValue: new Map() }));
    entry.indexByValue.set(value, i + 1);
  });
  return names;
}

const STATIC_NAMES = buildStaticNames();

/** Strings up to this many UTF-16 units take at most 126 octets, so their length fits one octet. */
const SHORT_STRING = 42;
/** Where a block is written before being copied out at its exact size. */
const encodeScratch = new Scratch();

function writeInteger(out: Buffer, pos: number, value: number, prefixBits: number, flags: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out[pos] = flags | value;
    return pos + 1;
  }
  out[pos++] = flags | max;
  let rest = value - max;
  for (; rest >= 128; rest = Math.floor(rest / 128)) out[pos++] = 0x80 | (rest % 128);
  out[pos] = rest;
  return pos + 1;
}

/** A raw string literal (§5.2); header strings are short and mostly ASCII, which skips native calls. */
function writeString(out: Buffer, pos: number, text: string): number {
  if (text.length > SHORT_STRING) {
    const octets = Buffer.byteLength(text, "utf8");
    const start = writeInteger(out, pos, octets, 7, 0);
    return start + out.write(text, start, octets, "utf8");
  }
  const start = pos + 1;
  let end = start;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x80) {
      end = start + out.write(text, start, "utf8");
      break;
    }
    out[end++] = unit;
  }
  out[pos] = end - start;
  return end;
}

/** Indexed field (§6.1) or literal without indexing (§6.2.2). */
function writeField(out: Buffer, pos: number, name: string, value: string): number {
  const known = STATIC_NAMES.get(name);
  const index = known?.indexByValue.get(value);
  if (index !== undefined) return writeInteger(out, pos, index, 7, 0x80);
  let next = writeInteger(out, pos, known?.index ?? 0, 4, 0);
  if (!known) next = writeString(out, next, name);
  return writeString(out, next, value);
}

/**
 * Encodes a header list statelessly: a field whose name and value are both in the static table is
 * an indexed field; every other field is a literal without indexing (with the static table's name
 * index when the name is there), raw (non-Huffman) strings. It never adds to the peer's dynamic
 * table, so the encoder needs no state.
 */
export function encodeHeaders(fields: readonly HeaderField[]): Buffer {
  // A UTF-16 unit is at most 3 UTF-8 octets; 16 covers a field's first octet and two lengths.
  let bound = 0;
  for (const [name, value] of fields) bound += 16 + 3 * (name.length + value.length);
  const scratch = encodeScratch.get(bound);
  let pos = 0;
  for (const [name, value] of fields) pos = writeField(scratch, pos, name, value);
  const out = Buffer.allocUnsafe(pos);
  scratch.copy(out, 0, 0, pos);
  return out;
}
