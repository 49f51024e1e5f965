import { ScalarType } from "@bufbuild/protobuf";
import { invalidArgument } from "@hangar/shared";
import { checkText } from "./check-text";

const FLOAT32_MAX = 3.4028234663852886e38;
const decimalInteger = /^-?\d+$/;
const jsonNumber = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const base64Text = /^(?:[A-Za-z0-9+/]*|[A-Za-z0-9\-_]*)={0,2}$/;

interface IntRange {
  readonly name: string;
  readonly min: bigint;
  readonly max: bigint;
  readonly wide: boolean;
}

const ranges: Partial<Record<ScalarType, IntRange>> = {
  [ScalarType.INT32]: { name: "int32", min: -(2n ** 31n), max: 2n ** 31n - 1n, wide: false },
  [ScalarType.SINT32]: { name: "int32", min: -(2n ** 31n), max: 2n ** 31n - 1n, wide: false },
  [ScalarType.SFIXED32]: { name: "int32", min: -(2n ** 31n), max: 2n ** 31n - 1n, wide: false },
  [ScalarType.UINT32]: { name: "uint32", min: 0n, max: 2n ** 32n - 1n, wide: false },
  [ScalarType.FIXED32]: { name: "uint32", min: 0n, max: 2n ** 32n - 1n, wide: false },
  [ScalarType.INT64]: { name: "int64", min: -(2n ** 63n), max: 2n ** 63n - 1n, wide: true },
  [ScalarType.SINT64]: { name: "int64", min: -(2n ** 63n), max: 2n ** 63n - 1n, wide: true },
  [ScalarType.SFIXED64]: { name: "int64", min: -(2n ** 63n), max: 2n ** 63n - 1n, wide: true },
  [ScalarType.UINT64]: { name: "uint64", min: 0n, max: 2n ** 64n - 1n, wide: true },
  [ScalarType.FIXED64]: { name: "uint64", min: 0n, max: 2n ** 64n - 1n, wide: true },
};

/** Converts a JSON value to a scalar field's value; `path` names the field in the 400 it throws. */
export type ScalarReader = (json: unknown, path: string) => unknown;

/**
 * Returns the reader for a scalar type, following protobuf JSON with the gateway's strictness:
 * strings without U+0000 (see `checkText`), integers as exact integer numbers or decimal strings
 * within range, floats as numbers (or "NaN"/"Infinity"/"-Infinity"), bool only true/false, bytes
 * as base64. 64-bit integers come back as bigint, or as a decimal string when the field has
 * `jstype = JS_STRING`.
 */
export function scalarReader(type: ScalarType, longAsString = false): ScalarReader {
  const key = type * 2 + (longAsString ? 1 : 0);
  let reader = cache.get(key);
  if (reader === undefined) cache.set(key, (reader = newReader(type, longAsString)));
  return reader;
}

const cache = new Map<number, ScalarReader>();

function newReader(type: ScalarType, longAsString: boolean): ScalarReader {
  const range = ranges[type];
  if (range !== undefined) return integerReader(range, longAsString);
  switch (type) {
    case ScalarType.STRING:
      return (json, path) => (typeof json === "string" ? checkText(json, path) : fail(path, "expected string"));
    case ScalarType.BOOL:
      return (json, path) => (typeof json === "boolean" ? json : fail(path, "expected boolean"));
    case ScalarType.BYTES:
      return readBytes;
    case ScalarType.FLOAT:
      return (json, path) => {
        const value = readDouble(json, path);
        return Number.isFinite(value) && Math.abs(value) > FLOAT32_MAX ? fail(path, "out of range for float") : value;
      };
    default:
      return readDouble;
  }
}

/** Digits of the widest integer type (2**64 - 1): text with more significant digits is out of range. */
const MAX_DIGITS = 20;

function integerReader(range: IntRange, longAsString: boolean): ScalarReader {
  return (json, path) => {
    let value: bigint;
    if (typeof json === "bigint") {
      value = json;
    } else if (typeof json === "number" && Number.isInteger(json)) {
      value = BigInt(json);
    } else if (typeof json === "number" && !Number.isFinite(json)) {
      return fail(path, `out of range for ${range.name}`);
    } else if (typeof json === "string" && decimalInteger.test(json)) {
      // BigInt() of a MiB of digits takes a fifth of a second; no such number is in range anyway.
      if (json.replace(/^-?0*/, "").length > MAX_DIGITS) return fail(path, `out of range for ${range.name}`);
      value = BigInt(json);
    } else {
      return fail(path, "expected integer");
    }
    if (value < range.min || value > range.max) return fail(path, `out of range for ${range.name}`);
    if (!range.wide) return Number(value);
    return longAsString ? value.toString() : value;
  };
}

function readDouble(json: unknown, path: string): number {
  // A literal such as 1e400 parses to Infinity; protobuf JSON spells infinities only as strings.
  if (typeof json === "number") return Number.isFinite(json) ? json : fail(path, "out of range for double");
  if (typeof json === "bigint") return Number(json);
  if (typeof json === "string") {
    if (json === "NaN") return NaN;
    if (json === "Infinity") return Infinity;
    if (json === "-Infinity") return -Infinity;
    if (jsonNumber.test(json)) {
      const value = Number(json);
      return Number.isFinite(value) ? value : fail(path, "out of range for double");
    }
  }
  return fail(path, "expected number");
}

function readBytes(json: unknown, path: string): Uint8Array {
  if (typeof json !== "string" || !base64Text.test(json) || json.replace(/=+$/, "").length % 4 === 1) {
    return fail(path, "expected base64 string");
  }
  return new Uint8Array(Buffer.from(json, json.includes("-") || json.includes("_") ? "base64url" : "base64"));
}

function fail(path: string, problem: string): never {
  throw invalidArgument(path, problem);
}
