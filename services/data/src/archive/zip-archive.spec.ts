import { Readable } from "node:stream";
import { crc32, inflateRawSync } from "node:zlib";
import { zipArchive, type ArchiveEntry } from "./zip-archive";

// ZIP64 needs entries of 4 GiB; the mock lets small entries take that path.
let forceZip64 = false;
jest.mock("./zip-format", () => {
  const actual = jest.requireActual<typeof import("./zip-format")>("./zip-format");
  return { ...actual, needsZip64: (size: number) => forceZip64 || actual.needsZip64(size) };
});

const objects: Record<string, Buffer> = { a: Buffer.from("alpha ".repeat(500)), e: Buffer.alloc(0), u: Buffer.from("ünïcødé") };
const entry = (name: string, key: string): ArchiveEntry => ({ name, key, size: objects[key]?.length ?? 3, modified: new Date("2024-05-06T07:08:10Z") });
const source = { open: async (key: string) => (objects[key] ? Readable.from([objects[key]]) : Promise.reject(new Error("no such object"))), progress: () => {} };

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Reads entries through the central directory, following ZIP64 extra fields; checks CRCs. */
function read(archive: Buffer): Record<string, string> {
  const end = archive.lastIndexOf(Buffer.from("PK\x05\x06", "latin1"));
  let at = archive.readUInt32LE(end + 16);
  const out: Record<string, string> = {};
  for (let i = 0; i < archive.readUInt16LE(end + 10); i++) {
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const name = archive.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    let compressed = archive.readUInt32LE(at + 20);
    if (compressed === 0xffffffff) compressed = Number(archive.readBigUInt64LE(at + 46 + nameLength + 4 + 8));
    const local = archive.readUInt32LE(at + 42);
    const start = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
    const data = inflateRawSync(archive.subarray(start, start + compressed));
    expect(crc32(data)).toBe(archive.readUInt32LE(at + 16));
    out[name] = data.toString("utf8");
    at += 46 + nameLength + extraLength + archive.readUInt16LE(at + 32);
  }
  return out;
}

describe("zipArchive", () => {
  const expected = { "a.txt": objects.a!.toString(), "dir/empty": "", "dir/ü.txt": objects.u!.toString() };
  const entries = [entry("a.txt", "a"), entry("dir/empty", "e"), entry("dir/ü.txt", "u")];

  afterEach(() => (forceZip64 = false));

  test("streams the entries into a readable archive and reports the plain bytes", async () => {
    let progress = 0;
    const archive = await collect(zipArchive(entries, { ...source, progress: (n) => (progress += n) }));
    expect(read(archive)).toEqual(expected);
    expect(progress).toBe(objects.a!.length + objects.u!.length);
  });

  test("entries announced as ZIP64 carry 8-byte sizes and stay readable", async () => {
    forceZip64 = true;
    const archive = await collect(zipArchive(entries, source));
    expect(archive.readUInt16LE(4)).toBe(45);
    expect(read(archive)).toEqual(expected);
  });

  test("a missing object or a size that differs from the record fails the stream, naming the entry", async () => {
    await expect(collect(zipArchive([entry("a.txt", "a"), entry("gone.bin", "nope")], source))).rejects.toThrow(/'gone.bin' could not be read: no such object/);
    await expect(collect(zipArchive([{ ...entry("a.txt", "a"), size: 4 }], source))).rejects.toThrow(/'a.txt' has 3000 bytes but its record says 4/);
  });
});
