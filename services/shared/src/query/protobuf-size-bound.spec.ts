import { globSync } from "node:fs";
import path from "node:path";
import { create, ScalarType, toBinary, type DescField, type DescFile, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence, FileDescriptorSetSchema, isWrapperDesc, ValueSchema } from "@bufbuild/protobuf/wkt";
import { TopicSchema } from "../gen/hangar/data/v1/topic_pb";
import { protobufSizeBound } from "./protobuf-size-bound";

/** A deterministic pseudo-random source (mulberry32), so a failure names a reproducible case. */
function randomSource(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Characters of 1, 2, 3 and 4 UTF-8 bytes (the last a surrogate pair), and those JSON escapes. */
const CHARACTERS = ["a", "Z", "0", '"', "\\", "\n", "é", "ß", "漢", "€", "😀", "𝄞"];

class Generator {
  constructor(private readonly next: () => number) {}

  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Now and then past 127 and 16,383 units, where a length prefix takes another byte; half of them of one character. */
  text(): string {
    const length = this.chance(0.03) ? 100 + this.int(20_000) : this.int(12);
    const only = this.chance(0.5) ? CHARACTERS[this.int(CHARACTERS.length)] : undefined;
    if (only !== undefined) return only.repeat(Math.ceil(length / only.length));
    let out = "";
    while (out.length < length) out += CHARACTERS[this.int(CHARACTERS.length)];
    return out;
  }

  scalar(type: ScalarType, longAsString: boolean): unknown {
    const sign = this.chance(0.3) ? -1 : 1;
    switch (type) {
      case ScalarType.STRING:
        return this.text();
      case ScalarType.BYTES:
        return new Uint8Array(this.int(this.chance(0.1) ? 5000 : 20)).map(() => this.int(256));
      case ScalarType.BOOL:
        return this.chance(0.5);
      case ScalarType.DOUBLE:
        return sign * this.next() * 1e300;
      case ScalarType.FLOAT:
        return sign * this.next() * 1e30;
      case ScalarType.INT32:
      case ScalarType.SINT32:
      case ScalarType.SFIXED32:
        return sign * this.int(2 ** 31 - 1);
      case ScalarType.UINT32:
      case ScalarType.FIXED32:
        return this.int(2 ** 32);
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        return this.long(1n, longAsString);
      default:
        return this.long(BigInt(sign), longAsString);
    }
  }

  long(sign: bigint, asString: boolean): bigint | string {
    const value = sign * (BigInt(this.int(2 ** 31)) << BigInt(this.int(32)));
    return asString ? value.toString() : value;
  }

  json(depth: number): JsonValue {
    switch (this.int(depth > 2 ? 4 : 6)) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.next() * 1e6;
      case 3:
        return this.text();
      case 4:
        return Array.from({ length: this.int(4) }, () => this.json(depth + 1));
      default:
        return this.jsonObject(depth + 1);
    }
  }

  jsonObject(depth: number): JsonObject {
    return Object.fromEntries(Array.from({ length: this.int(4) }, () => [this.text(), this.json(depth)]));
  }

  /** An init shape of `desc` as a caller would build it: any field may be unset, nesting stops at `depth`. */
  message(desc: DescMessage, depth: number): Record<string, unknown> {
    const init: Record<string, unknown> = {};
    for (const field of desc.fields) {
      const required = field.presence === FeatureSet_FieldPresence.LEGACY_REQUIRED;
      if (field.oneof !== undefined || (!required && this.chance(0.25))) continue;
      const value = this.fieldValue(field, depth);
      if (value !== undefined) init[field.localName] = value;
    }
    for (const oneof of desc.oneofs) {
      const member = oneof.fields[this.int(oneof.fields.length + 1)];
      if (member === undefined) continue;
      const value = this.element(member, depth);
      if (value !== undefined) init[oneof.localName] = { case: member.localName, value };
    }
    return init;
  }

  fieldValue(field: DescField, depth: number): unknown {
    switch (field.fieldKind) {
      case "list":
        return Array.from({ length: this.int(3) }, () => this.element(field, depth)).filter((v) => v !== undefined);
      case "map":
        return Object.fromEntries(Array.from({ length: this.int(3) }, () => [String(this.scalar(field.mapKey, true)), this.mapValue(field, depth)]));
      case "message":
        if (isWrapperDesc(field.message)) return this.scalar(field.message.fields[0]!.scalar!, field.message.fields[0]!.longAsString);
        return this.element(field, depth);
      default:
        return this.element(field, depth);
    }
  }

  element(field: DescField, depth: number): unknown {
    if (field.scalar !== undefined) return this.scalar(field.scalar, "longAsString" in field && field.longAsString);
    if (field.enum !== undefined) return field.enum.values[this.int(field.enum.values.length)]!.number;
    return this.messageValue(field.message!, field.parent, depth);
  }

  mapValue(field: DescField & { fieldKind: "map" }, depth: number): unknown {
    if (field.mapKind === "scalar") return this.scalar(field.scalar, false);
    if (field.mapKind === "enum") return field.enum.values[0]!.number;
    return this.messageValue(field.message, field.parent, depth) ?? {};
  }

  messageValue(desc: DescMessage, parent: DescMessage, depth: number): unknown {
    if (desc.typeName === "google.protobuf.Struct" && parent.typeName !== "google.protobuf.Value") return this.jsonObject(depth);
    return depth > 2 ? undefined : this.message(desc, depth + 1);
  }
}

/** Every message type of every generated file that declares a service (requests, responses and all they hold). */
function serviceMessages(): DescMessage[] {
  const gen = path.join(__dirname, "..", "gen", "hangar");
  const files = globSync("**/*_pb.ts", { cwd: gen })
    .flatMap((file) => Object.values(require(path.join(gen, file)) as Record<string, unknown>))
    .filter((value): value is DescFile => (value as DescFile | undefined)?.kind === "file");
  const nested = (desc: DescMessage): DescMessage[] => [desc, ...desc.nestedMessages.flatMap(nested)];
  return files.flatMap((file) => file.messages.flatMap(nested));
}

describe("protobufSizeBound", () => {
  // The platform's own messages, and descriptors (proto2: required, groups' syntax, nested enums) and Value.
  const messages = [...serviceMessages(), FileDescriptorSetSchema, ValueSchema];

  test("the generated messages are found", () => {
    expect(messages.length).toBeGreaterThan(300);
  });

  test("is at least the encoded size of random records of every message type, as init shapes and as messages", () => {
    const generator = new Generator(randomSource(12));
    const under = messages.flatMap((desc) =>
      Array.from({ length: 20 }, () => generator.message(desc, 0)).flatMap((init) => {
        const message = create(desc, init);
        const size = toBinary(desc, message).length;
        const bounds = [protobufSizeBound(desc, init), protobufSizeBound(desc, message)];
        return bounds.every((bound) => bound >= size) ? [] : [`${desc.typeName}: bounds ${bounds.join(", ")}, ${size} bytes`];
      }),
    );
    expect(under).toEqual([]);
  });

  test("is within four times the encoded size of an ASCII topic with 3 message paths", () => {
    const path = (name: string) => ({ messagePathId: `mp_${name}`, messagePath: name, sourcePath: name, pathInSchema: [name], topicId: "tp_1", orgId: "og_1", dataType: "float64", canonicalDataType: "number" });
    const topic = create(TopicSchema, { topicId: "tp_1", topicName: "/imu", orgId: "og_1", createdBy: "someone@example.com", messagePaths: ["x", "y", "z"].map(path), metadata: { k: 1 } });
    const size = toBinary(TopicSchema, topic).length;
    expect(protobufSizeBound(TopicSchema, topic)).toBeGreaterThanOrEqual(size);
    expect(protobufSizeBound(TopicSchema, topic)).toBeLessThanOrEqual(4 * size);
  });

  test("counts the fields a decoding kept without knowing them", () => {
    const known = create(TopicSchema, { topicId: "tp_1" });
    const withUnknown = { ...known, $unknown: [{ no: 99, wireType: 2, data: new Uint8Array(1000) }] };
    expect(protobufSizeBound(TopicSchema, withUnknown)).toBeGreaterThanOrEqual(toBinary(TopicSchema, withUnknown).length);
  });
});
