import { ScalarType, type DescEnum } from "@bufbuild/protobuf";

/** Writes one scalar or enum value as JSON text. */
export type ScalarWriter = (value: unknown) => string;

/**
 * Returns the JSON writer of a scalar type: 64-bit integers as bare numbers with exact digits
 * (from bigint or a decimal string), floats as numbers or "NaN"/"Infinity"/"-Infinity" like
 * protobuf JSON, bytes as padded standard base64.
 */
export function scalarWriter(type: ScalarType): ScalarWriter {
  switch (type) {
    case ScalarType.STRING:
      return (v) => JSON.stringify(v);
    case ScalarType.BOOL:
      return (v) => (v ? "true" : "false");
    case ScalarType.BYTES:
      return (v) => {
        const bytes = v as Uint8Array;
        return `"${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}"`;
      };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return writeFloat;
    default:
      return (v) => String(v);
  }
}

function writeFloat(v: unknown): string {
  const n = v as number;
  if (Number.isFinite(n)) return String(n);
  return Number.isNaN(n) ? '"NaN"' : n > 0 ? '"Infinity"' : '"-Infinity"';
}

const enumWriters = new WeakMap<DescEnum, ScalarWriter>();

/** Returns the JSON writer of an enum: the value's name, the bare number for an unknown value, null for NullValue. */
export function enumWriter(desc: DescEnum): ScalarWriter {
  let writer = enumWriters.get(desc);
  if (writer === undefined) {
    if (desc.typeName === "google.protobuf.NullValue") {
      writer = () => "null";
    } else {
      const names = new Map(desc.values.map((v) => [v.number, JSON.stringify(v.name)]));
      writer = (v) => names.get(v as number) ?? String(v);
    }
    enumWriters.set(desc, writer);
  }
  return writer;
}
