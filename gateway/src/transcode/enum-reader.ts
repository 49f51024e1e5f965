import type { DescEnum } from "@bufbuild/protobuf";
import { invalidArgument } from "@hangar/shared";

const numbersByName = new WeakMap<DescEnum, ReadonlyMap<string, number>>();
const decimalInteger = /^-?\d+$/;

/**
 * Converts a JSON enum value (the value's name, or its number) to the enum number. An unknown
 * name or number is a 400 listing the accepted names. `google.protobuf.NullValue` also accepts null.
 */
export function readEnum(desc: DescEnum, json: unknown, path: string): number {
  if (typeof json === "string") {
    const number = namesOf(desc).get(json);
    if (number !== undefined) return number;
  } else if (typeof json === "number" && desc.value[json] !== undefined) {
    return json;
  } else if (json === null && desc.typeName === "google.protobuf.NullValue") {
    return 0;
  }
  throw invalidArgument(path, `expected one of ${desc.values.map((v) => v.name).join(", ")}`);
}

/** Like `readEnum` for a path or query parameter, where a number arrives as decimal text. */
export function readEnumText(desc: DescEnum, raw: string, path: string): number {
  return readEnum(desc, decimalInteger.test(raw) ? Number(raw) : raw, path);
}

function namesOf(desc: DescEnum): ReadonlyMap<string, number> {
  let names = numbersByName.get(desc);
  if (names === undefined) {
    names = new Map(desc.values.map((v) => [v.name, v.number]));
    numbersByName.set(desc, names);
  }
  return names;
}
