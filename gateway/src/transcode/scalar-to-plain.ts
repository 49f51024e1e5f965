import { ScalarType, type DescEnum } from "@bufbuild/protobuf";

/** Turns one scalar or enum value into the value `JSON.stringify` writes as its response JSON. */
export type ScalarToPlain = (value: unknown) => unknown;

// Node 21+ (V8 11.4); not yet in TypeScript's lib. A raw JSON value is written as its text.
const { rawJSON } = JSON as unknown as { rawJSON(text: string): unknown };

/**
 * Returns the converter of a scalar type: 64-bit integers as bare numbers with exact digits (from
 * bigint or a decimal string; past 2^53 as raw JSON text, which a JavaScript number would round),
 * floats as numbers or "NaN"/"Infinity"/"-Infinity" like protobuf JSON, bytes as padded standard
 * base64.
 */
export function scalarToPlain(type: ScalarType): ScalarToPlain {
  switch (type) {
    case ScalarType.STRING:
    case ScalarType.BOOL:
      return (v) => v;
    case ScalarType.BYTES:
      return (v) => {
        const bytes = v as Uint8Array;
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
      };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return floatToPlain;
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return longToPlain;
    default:
      return (v) => v;
  }
}

/** A 64-bit integer (bigint, or a decimal string for a `jstype = JS_STRING` field) as an exact bare number. */
export function longToPlain(v: unknown): unknown {
  if (typeof v === "bigint") return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : rawJSON(v.toString());
  return typeof v === "string" ? rawJSON(v) : v;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** The decimal text of a number, written as it is (a bare number), or as a string if it is not JSON's spelling of one. */
export function numberText(text: string): unknown {
  return JSON_NUMBER.test(text) ? rawJSON(text) : text;
}

function floatToPlain(v: unknown): unknown {
  const n = v as number;
  if (Number.isFinite(n)) return n;
  return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
}

const enumConverters = new WeakMap<DescEnum, ScalarToPlain>();

/** Returns the converter of an enum: the value's name, the bare number for an unknown value, null for NullValue. */
export function enumToPlain(desc: DescEnum): ScalarToPlain {
  let convert = enumConverters.get(desc);
  if (convert === undefined) {
    if (desc.typeName === "google.protobuf.NullValue") {
      convert = () => null;
    } else {
      const names = new Map(desc.values.map((v) => [v.number, v.name]));
      convert = (v) => names.get(v as number) ?? v;
    }
    enumConverters.set(desc, convert);
  }
  return convert;
}
