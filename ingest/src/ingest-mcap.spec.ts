import { McapIndexedReader, TempBuffer } from "@mcap/core";
import type { Message } from "@mcap/core";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { zstdDecompressSync } from "node:zlib";
import { writeFixture } from "./mcap.fixture";
import type { Fixture, Layout } from "./mcap.fixture";
import { createDirectorySink, ingestMcap, McapIngestError, openFileSource } from "./index";
import type { DerivedFileSink, IngestManifest } from "./index";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "ingest-spec-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `bytes` as input.mcap in the spec's directory and ingests it into `out`. */
async function ingest(bytes: Uint8Array, out = path.join(dir, "out")): Promise<IngestManifest> {
  const input = path.join(dir, "input.mcap");
  writeFileSync(input, bytes);
  const source = await openFileSource(input);
  try {
    return await ingestMcap(source, createDirectorySink(out));
  } finally {
    await source.close();
  }
}

async function readDerived(file: string): Promise<{ reader: McapIndexedReader; messages: Message[] }> {
  const reader = await McapIndexedReader.Initialize({
    readable: new TempBuffer(readFileSync(file)),
    decompressHandlers: { zstd: (data, size) => zstdDecompressSync(data, { maxOutputLength: Number(size) }) },
  });
  const messages: Message[] = [];
  for await (const message of reader.readMessages()) messages.push(message);
  return { reader, messages };
}

function outputBytes(out: string): Map<string, Buffer> {
  return new Map(readdirSync(out).map((name) => [name, readFileSync(path.join(out, name))]));
}

/** Entries of the spec's directory other than the input: what an ingestion left behind. */
function leftBehind(): string[] {
  return readdirSync(dir).filter((name) => name !== "input.mcap");
}

const first = (fixture: Fixture, topic: string) => fixture.messages.get(topic)![0]!.logTime;
const last = (fixture: Fixture, topic: string) => fixture.messages.get(topic)!.at(-1)!.logTime;

describe("ingestMcap", () => {
  test("describes each channel as a register_file_topics declaration plus the topic's own facts", async () => {
    const fixture = await writeFixture("indexed");
    const manifest = await ingest(fixture.bytes);
    expect(manifest.topics.map((topic) => topic.topic_name)).toEqual(["/pose", "/weather", "/reading"]);
    for (const [i, topic] of manifest.topics.entries()) {
      const schema = fixture.schemas.get(topic.topic_name)!;
      expect(topic).toEqual({
        topic_name: topic.topic_name,
        topic_schema: { name: schema.name, fields: expect.any(Array) },
        timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: first(fixture, topic.topic_name), max_file_timestamp_ns: last(fixture, topic.topic_name) }],
        data_range: null,
        representations: [],
        schema_name: schema.name,
        schema_encoding: schema.encoding,
        schema_checksum: createHash("sha256").update(schema.data).digest("hex"),
        message_encoding: { "/pose": "cdr", "/weather": "json", "/reading": "protobuf" }[topic.topic_name],
        message_count: 50,
        start_time: first(fixture, topic.topic_name),
        end_time: last(fixture, topic.topic_name),
        channel_id: i,
        derived_file: `channel-${i}.mcap`,
      });
    }
  });

  test("derives message paths from ROS 2 msg, JSON Schema and protobuf schemas", async () => {
    const manifest = await ingest((await writeFixture("indexed")).bytes);
    const fields = (topic: string) => manifest.topics.find((entry) => entry.topic_name === topic)!.topic_schema.fields.map((field) => [field.path.join("."), field.data_type, field.canonical_data_type]);
    expect(fields("/pose")).toEqual([
      ["header", "std_msgs/Header", "object"],
      ["header.stamp", "builtin_interfaces/msg/Time", "object"],
      ["header.stamp.sec", "int32", "number"],
      ["header.stamp.nanosec", "uint32", "number"],
      ["header.frame_id", "string", "string"],
      ["position", "float64[3]", "number_array"],
      ["label", "string", "string"],
      ["velocity", "geometry_msgs/Vector3", "object"],
      ["velocity.x", "float64", "number"],
      ["velocity.y", "float64", "number"],
      ["velocity.z", "float64", "number"],
      ["blob", "uint8[]", "array"],
    ]);
    expect(fields("/weather")).toEqual([
      ["temperature", "number", "number"],
      ["ok", "boolean", "boolean"],
      ["status", "string", "string"],
      ["samples", "array", "number_array"],
      ["where", "object", "object"],
      ["where.lat", "number", "number"],
      ["where.tags", "array", "array"],
    ]);
    expect(fields("/reading")).toEqual([
      ["value", "double", "number"],
      ["series", "float[]", "number_array"],
      ["inner", "demo.Reading", "object"],
      ["raw", "bytes", "array"],
    ]);
    const field = manifest.topics[0]!.topic_schema.fields[2]!;
    expect(field).toEqual({ name: "sec", path: ["header", "stamp", "sec"], data_type: "int32", canonical_data_type: "number" });
  });

  test("each derived file holds only its channel, with its schema and every message byte for byte", async () => {
    const fixture = await writeFixture("indexed");
    const manifest = await ingest(fixture.bytes);
    for (const topic of manifest.topics) {
      const { reader, messages } = await readDerived(path.join(dir, "out", topic.derived_file));
      expect([...reader.channelsById.values()].map((channel) => channel.topic)).toEqual([topic.topic_name]);
      const schema = [...reader.schemasById.values()];
      expect(schema.map(({ name, encoding, data }) => ({ name, encoding, data: Buffer.from(data) }))).toEqual([{ ...fixture.schemas.get(topic.topic_name)!, data: Buffer.from(fixture.schemas.get(topic.topic_name)!.data) }]);
      const expected = fixture.messages.get(topic.topic_name)!;
      expect(messages.map(({ sequence, logTime, publishTime, data }) => ({ sequence, logTime, publishTime, data: Buffer.from(data) }))).toEqual(
        expected.map(({ sequence, logTime, publishTime, data }) => ({ sequence, logTime, publishTime, data: Buffer.from(data) })),
      );
      expect(reader.statistics?.messageCount).toBe(50n);
    }
  });

  test.each<Layout>(["chunked-no-summary", "unchunked-no-summary", "uncompressed-indexed", "uncompressed-no-summary"])(
    "a file laid out %s gives the same manifest and byte-identical derived files as an indexed one",
    async (layout) => {
      const indexed = await ingest((await writeFixture("indexed")).bytes, path.join(dir, "indexed"));
      const other = await ingest((await writeFixture(layout)).bytes, path.join(dir, "other"));
      expect(other).toEqual(indexed);
      expect(outputBytes(path.join(dir, "other"))).toEqual(outputBytes(path.join(dir, "indexed")));
    },
  );

  test("re-ingesting replaces the output directory whole, with identical bytes", async () => {
    const bytes = (await writeFixture("indexed")).bytes;
    const out = path.join(dir, "out");
    await ingest(bytes, out);
    const before = outputBytes(out);
    writeFileSync(path.join(out, "stale.mcap"), "from an older ingestion");
    await ingest(bytes, out);
    expect(outputBytes(out)).toEqual(before);
    expect(leftBehind()).toEqual(["out"]);
  });

  test("the output is the same bytes whatever the number of zstd workers", async () => {
    const fixture = await writeFixture("indexed");
    const input = path.join(dir, "input.mcap");
    writeFileSync(input, fixture.bytes);
    const outputs = [];
    for (const zstdWorkers of [1, 3]) {
      const source = await openFileSource(input);
      const out = path.join(dir, `out-${zstdWorkers}`);
      await ingestMcap(source, createDirectorySink(out), { zstdWorkers, chunkSize: 1024 }).finally(() => source.close());
      outputs.push(outputBytes(out));
    }
    expect(outputs[1]).toEqual(outputs[0]);
  });

  test("channels without messages get no topic and no derived file", async () => {
    const manifest = await ingest((await writeFixture("indexed", 0)).bytes);
    expect(manifest.topics).toEqual([]);
    expect(readdirSync(path.join(dir, "out"))).toEqual([]);
  });
});

describe("ingestMcap refusing a broken file", () => {
  async function refusal(bytes: Uint8Array): Promise<McapIngestError> {
    const error = await ingest(bytes).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(McapIngestError);
    expect(leftBehind()).toEqual([]); // no derived file, no staging directory
    return error as McapIngestError;
  }

  async function chunkOffsets(bytes: Uint8Array): Promise<bigint[]> {
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    return reader.chunkIndexes.map((chunk) => chunk.chunkStartOffset);
  }

  test("a file cut inside a chunk names the chunk's offset and says it is truncated", async () => {
    const bytes = (await writeFixture("indexed")).bytes;
    const [, second] = await chunkOffsets(bytes);
    const error = await refusal(bytes.subarray(0, Number(second!) + 20));
    expect(error.message).toBe(`Chunk record at offset ${second}: truncated: the record is ${error.message.match(/is (\d+) bytes/)![1]} bytes long, the file ends 20 bytes after its start`);
    expect(error.offset).toBe(second);
  });

  test("a file cut in its summary fails as truncated, though every message was read", async () => {
    const bytes = (await writeFixture("indexed")).bytes;
    const error = await refusal(bytes.subarray(0, bytes.byteLength - 30));
    expect(error.message).toMatch(/^(\w+) record at offset \d+: truncated/);
  });

  test("a file of only the magic and header fails naming where the file ends", async () => {
    const bytes = (await writeFixture("unchunked-no-summary")).bytes;
    const headerEnd = 8 + 9 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(8 + 1, true);
    const error = await refusal(bytes.subarray(0, headerEnd));
    expect(error.message).toBe(`file record at offset ${headerEnd}: truncated: the file ends at byte ${headerEnd} without a Footer record`);
  });

  test.each<Layout>(["uncompressed-indexed", "uncompressed-no-summary"])("a chunk whose CRC does not match names the chunk (%s)", async (layout) => {
    const bytes = (await writeFixture(layout)).bytes;
    const [firstChunk] = await chunkOffsets((await writeFixture("uncompressed-indexed")).bytes);
    const corrupt = Uint8Array.from(bytes);
    corrupt[Number(firstChunk!) + 200] ^= 0xff; // inside the chunk's records, past its header
    const error = await refusal(corrupt);
    expect(error.message).toBe(`Chunk record at offset ${firstChunk}: the CRC of its decompressed records does not match (the file is corrupt)`);
  });

  /** Where a Chunk record's uncompressed size and, for a zstd chunk, its compressed records start. */
  const UNCOMPRESSED_SIZE_AT = 9 + 8 + 8;
  const ZSTD_RECORDS_AT = UNCOMPRESSED_SIZE_AT + 8 + 4 + 4 + "zstd".length + 8;

  test.each<Layout>(["indexed", "chunked-no-summary"])("a zstd chunk that does not decompress names the chunk (%s)", async (layout) => {
    const bytes = Uint8Array.from((await writeFixture(layout)).bytes);
    const [firstChunk] = await chunkOffsets((await writeFixture("indexed")).bytes);
    const recordsAt = Number(firstChunk!) + ZSTD_RECORDS_AT;
    bytes.fill(0, recordsAt, recordsAt + 4); // the zstd frame's magic number gone
    const error = await refusal(bytes);
    expect(error.message).toMatch(new RegExp(`^Chunk record at offset ${firstChunk}: zstd: \\w`));
  });

  test.each<Layout>(["indexed", "chunked-no-summary"])("a zstd chunk whose records do not match its CRC names the chunk (%s)", async (layout) => {
    const bytes = Uint8Array.from((await writeFixture(layout)).bytes);
    const [firstChunk] = await chunkOffsets((await writeFixture("indexed")).bytes);
    const view = new DataView(bytes.buffer);
    const crcAt = Number(firstChunk!) + UNCOMPRESSED_SIZE_AT + 8;
    expect(view.getUint32(crcAt, true)).not.toBe(0); // the writer states one, so it is checked
    view.setUint32(crcAt, view.getUint32(crcAt, true) ^ 1, true);
    const error = await refusal(bytes);
    expect(error.message).toBe(`Chunk record at offset ${firstChunk}: the CRC of its decompressed records does not match (the file is corrupt)`);
  });

  test.each([-1, 1])("a zstd chunk stating an uncompressed size off by %i names the chunk", async (delta) => {
    const bytes = Uint8Array.from((await writeFixture("indexed")).bytes);
    const [firstChunk] = await chunkOffsets(bytes);
    const view = new DataView(bytes.buffer);
    const sizeAt = Number(firstChunk!) + UNCOMPRESSED_SIZE_AT;
    const size = Number(view.getBigUint64(sizeAt, true));
    view.setBigUint64(sizeAt, BigInt(size + delta), true);
    const error = await refusal(bytes);
    const detail = delta < 0 ? `decompresses to more than the ${size - 1} bytes it states` : `decompressed to ${size} bytes, not the ${size + 1} it states`;
    expect(error.message).toBe(`Chunk record at offset ${firstChunk}: ${detail}`);
  });

  test("a summary whose statistics disagree with the chunks fails rather than losing messages", async () => {
    const bytes = Uint8Array.from((await writeFixture("indexed")).bytes);
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    const view = new DataView(bytes.buffer);
    const statisticsAt = Number(reader.summaryOffsetsByOpcode.get(0x0b)!.groupStart);
    view.setBigUint64(statisticsAt + 9, 151n, true); // message count: one more than the chunks hold
    view.setUint32(bytes.byteLength - 8 - 4, 0, true); // summary CRC 0: "not computed"
    const error = await refusal(bytes);
    expect(error.message).toBe("Statistics record: the summary counts 151 messages, the chunks hold 150");
  });

  test("a file that is not MCAP fails at offset 0", async () => {
    const error = await refusal(new TextEncoder().encode("this is a text file, not a robot log"));
    expect(error.message).toBe("magic record at offset 0: not MCAP: the magic bytes differ");
  });

  test("an error never quotes the file's content at length", async () => {
    const fixture = await writeFixture("unchunked-no-summary");
    const broken = Uint8Array.from(fixture.bytes);
    const schemaAt = Buffer.from(broken).indexOf("ros2msg") + 7 + 4; // the ROS 2 schema's text
    broken.fill(0x7b, schemaAt, schemaAt + 40); // "{{{{": not a message definition
    const error = await refusal(broken);
    expect(error.message.length).toBeLessThan(400);
  });
});

test("a sink failing to write fails the ingestion and is aborted", async () => {
  const input = path.join(dir, "input.mcap");
  writeFileSync(input, (await writeFixture("indexed")).bytes);
  const calls: string[] = [];
  const sink: DerivedFileSink = {
    create: (name) => {
      calls.push(`create ${name}`);
      return Promise.reject(new Error("no space left on device"));
    },
    commit: () => Promise.resolve(void calls.push("commit")),
    abort: () => Promise.resolve(void calls.push("abort")),
  };
  const source = await openFileSource(input);
  await expect(ingestMcap(source, sink)).rejects.toThrow("file record: no space left on device");
  await source.close();
  expect(calls.filter((call) => !call.startsWith("create"))).toEqual(["abort"]);
});

describe("createDirectorySink", () => {
  test("abort removes what was written and leaves an existing output untouched", async () => {
    const out = path.join(dir, "out");
    mkdirSync(out);
    writeFileSync(path.join(out, "kept.mcap"), "earlier");
    const sink = createDirectorySink(out);
    const file = await sink.create("channel-1.mcap");
    await file.write([new Uint8Array([1, 2, 3])]);
    await file.close();
    await sink.abort();
    expect(readdirSync(dir)).toEqual(["out"]);
    expect(readdirSync(out)).toEqual(["kept.mcap"]);
    expect(existsSync(path.join(out, "channel-1.mcap"))).toBe(false);
  });
});
