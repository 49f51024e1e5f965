import type { JsonValue } from "@bufbuild/protobuf";
import type { ListValue, Struct, Value } from "@bufbuild/protobuf/wkt";

/**
 * A JSON field's value as protobuf-es holds it: a Struct field is plain JSON (JsonObject), a
 * Value or ListValue field is a message tree. Which one is told by the field's type, never by the
 * value: a caller's metadata may well hold a key named `$typeName`.
 */
export type JsonField = { plain: JsonValue } | { message: Value | Struct | ListValue };

/** What measureJson found: the first limit passed, if any. */
export type JsonExcess = "bytes" | "depth" | undefined;

/** Key (undefined in a list) and value of one member of an object or list. */
type Member = [string | undefined, unknown];

/** A node's own bytes (brackets and commas, or a scalar's text) and, for an object or list, its members. */
interface Opened {
  size: number;
  /** Called only once the size is within the limit, so a huge list is not walked first. */
  members?: () => Iterable<Member>;
}

/**
 * Measures a JSON value against a size (bytes of its compact JSON text, string escapes aside) and
 * a nesting depth (the outermost object or list is level 1), and stops at the first limit passed,
 * so a huge value costs no more than the limit's worth of walking. Uses an explicit stack: a
 * value nested thousands of levels deep (possible over gRPC, where no JSON parser checked it)
 * cannot overflow the call stack.
 */
export function measureJson(value: JsonField, maxBytes: number, maxDepth: number): JsonExcess {
  const open = "plain" in value ? openPlain : openMessage;
  let bytes = 0;
  const stack: { node: unknown; depth: number }[] = [{ node: "plain" in value ? value.plain : value.message, depth: 0 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { members, size } = open(top.node);
    bytes += size;
    if (bytes > maxBytes) return "bytes";
    if (members === undefined) continue;
    if (top.depth + 1 > maxDepth) return "depth";
    for (const [key, member] of members()) {
      if (key !== undefined) bytes += Buffer.byteLength(key) + 3; // quotes and colon
      stack.push({ node: member, depth: top.depth + 1 });
    }
  }
  return undefined;
}

function openScalar(node: string | number | boolean | null): Opened {
  if (typeof node === "string") return { size: Buffer.byteLength(node) + 2 };
  return { size: node === null ? 4 : String(node).length };
}

function openPlain(node: unknown): Opened {
  const json = node as JsonValue;
  if (typeof json !== "object" || json === null) return openScalar(json);
  if (Array.isArray(json)) return { size: 2 + json.length, members: () => listMembers(json) };
  return { size: 2 + Object.keys(json).length, members: () => Object.entries(json) };
}

function openMessage(node: unknown): Opened {
  const message = node as Value | Struct | ListValue;
  switch (message.$typeName) {
    case "google.protobuf.Struct":
      return { size: 2 + Object.keys(message.fields).length, members: () => Object.entries(message.fields) };
    case "google.protobuf.ListValue":
      return { size: 2 + message.values.length, members: () => listMembers(message.values) };
    case "google.protobuf.Value":
      if (message.kind.case === "structValue" || message.kind.case === "listValue") return openMessage(message.kind.value);
      return openScalar(message.kind.case === undefined || message.kind.case === "nullValue" ? null : message.kind.value);
  }
}

function* listMembers(list: readonly unknown[]): Iterable<Member> {
  for (const member of list) yield [undefined, member];
}
