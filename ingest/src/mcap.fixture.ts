// Small MCAP files written in the specs with @mcap/core's writer: three channels in the three
// schema encodings the built-in ingestion reads, in any layout the writer can produce.
import { createFileRegistry, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { create } from "@bufbuild/protobuf";
import { McapWriter, TempBuffer } from "@mcap/core";
import type { McapWriterOptions, Message } from "@mcap/core";
import { zstdCompressSync } from "node:zlib";

export const ROS2_POSE = `std_msgs/Header header
float64[3] position
string label
geometry_msgs/Vector3 velocity
uint8[] blob
int32 LIMIT=4
================================================================================
MSG: std_msgs/Header
builtin_interfaces/Time stamp
string frame_id
================================================================================
MSG: builtin_interfaces/Time
int32 sec
uint32 nanosec
================================================================================
MSG: geometry_msgs/Vector3
float64 x
float64 y
float64 z
`;

export const JSON_SCHEMA = JSON.stringify({
  type: "object",
  properties: {
    temperature: { type: "number" },
    ok: { type: "boolean" },
    status: { type: ["string", "null"] },
    samples: { type: "array", items: { type: "integer" } },
    where: { $ref: "#/$defs/Point" },
  },
  $defs: { Point: { type: "object", properties: { lat: { type: "number" }, tags: { type: "array", items: { type: "string" } } } } },
});

/** A FileDescriptorSet defining `demo.Reading { double value = 1; repeated float series = 2; demo.Reading inner = 3; bytes raw = 4; }`. */
export function protobufDescriptor(): Uint8Array {
  const file = create(FileDescriptorProtoSchema, {
    name: "demo.proto",
    package: "demo",
    syntax: "proto3",
    messageType: [
      {
        name: "Reading",
        field: [
          { name: "value", number: 1, type: 1, label: 1, jsonName: "value" },
          { name: "series", number: 2, type: 2, label: 3, jsonName: "series" },
          { name: "inner", number: 3, type: 11, label: 1, typeName: ".demo.Reading", jsonName: "inner" },
          { name: "raw", number: 4, type: 12, label: 1, jsonName: "raw" },
        ],
      },
    ],
  });
  const set = create(FileDescriptorSetSchema, { file: [file] });
  createFileRegistry(set); // throws here, not in the spec, if the descriptor is malformed
  return toBinary(FileDescriptorSetSchema, set);
}

/** The layout of a written fixture file. */
export type Layout = "indexed" | "chunked-no-summary" | "unchunked-no-summary" | "uncompressed-indexed" | "uncompressed-no-summary";

const NO_SUMMARY = { useStatistics: false, useSummaryOffsets: false, useChunkIndex: false, useMessageIndex: false, useAttachmentIndex: false, useMetadataIndex: false, repeatSchemas: false, repeatChannels: false };
const LAYOUTS: Record<Layout, Omit<McapWriterOptions, "writable">> = {
  indexed: {},
  "uncompressed-indexed": { compressChunk: undefined },
  "chunked-no-summary": NO_SUMMARY,
  "uncompressed-no-summary": { ...NO_SUMMARY, compressChunk: undefined },
  "unchunked-no-summary": { ...NO_SUMMARY, useChunks: false },
};

/** A written fixture: the file's bytes and every message written, by topic. */
export interface Fixture {
  bytes: Uint8Array;
  messages: Map<string, Message[]>;
  schemas: Map<string, { name: string; encoding: string; data: Uint8Array }>;
}

/**
 * Writes `count` messages on each of three channels (`/pose` ROS 2 CDR, `/weather` JSON,
 * `/reading` protobuf), interleaved, in 1 KiB zstd chunks unless the layout says otherwise.
 */
export async function writeFixture(layout: Layout, count = 50): Promise<Fixture> {
  const buffer = new TempBuffer();
  const compress = (data: Uint8Array) => ({ compression: "zstd", compressedData: zstdCompressSync(data) });
  const writer = new McapWriter({ writable: buffer, chunkSize: 1024, compressChunk: compress, ...LAYOUTS[layout] });
  await writer.start({ profile: "ros2", library: "ingest-spec" });
  const schemas = new Map([
    ["/pose", { name: "demo_msgs/msg/Pose", encoding: "ros2msg", data: new TextEncoder().encode(ROS2_POSE) }],
    ["/weather", { name: "demo.Weather", encoding: "jsonschema", data: new TextEncoder().encode(JSON_SCHEMA) }],
    ["/reading", { name: "demo.Reading", encoding: "protobuf", data: protobufDescriptor() }],
  ]);
  const encodings: Record<string, string> = { "/pose": "cdr", "/weather": "json", "/reading": "protobuf" };
  const channels = new Map<string, number>();
  for (const [topic, schema] of schemas) {
    const schemaId = await writer.registerSchema(schema);
    channels.set(topic, await writer.registerChannel({ schemaId, topic, messageEncoding: encodings[topic]!, metadata: new Map() }));
  }
  const messages = new Map<string, Message[]>([...channels.keys()].map((topic) => [topic, []]));
  for (let i = 0; i < count; i++) {
    for (const [topic, channelId] of channels) {
      const message = { channelId, sequence: i, logTime: 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n, publishTime: BigInt(i), data: payload(topic, i) };
      await writer.addMessage(message);
      messages.get(topic)!.push(message);
    }
  }
  await writer.end();
  return { bytes: buffer.get(), messages, schemas };
}

function payload(topic: string, i: number): Uint8Array {
  if (topic === "/weather") return new TextEncoder().encode(JSON.stringify({ temperature: 20 + i / 10, ok: i % 2 === 0, status: null, samples: [i], where: { lat: 1, tags: [] } }));
  return new Uint8Array(Array.from({ length: 8 + (i % 5) }, (_, j) => (i * 31 + j) & 0xff));
}
