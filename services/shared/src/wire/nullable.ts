import type { Value } from "@bufbuild/protobuf/wkt";
import { invalidArgument } from "../errors";

/**
 * Reads an update field carried as a google.protobuf.Value: undefined when the field was omitted
 * (leave unchanged), null when it was an explicit JSON null (clear), else the string.
 */
export function nullableString(value: Value | undefined, field: string): string | null | undefined {
  if (value === undefined) return undefined;
  switch (value.kind.case) {
    case "nullValue":
    case undefined:
      return null;
    case "stringValue":
      return value.kind.value;
    default:
      throw invalidArgument(field, "expected a string or null");
  }
}

/** The record without its null and undefined entries (for "unset means absent" shapes). */
export function definedOnly<T extends Record<string, unknown>>(record: T): { [K in keyof T]?: Exclude<T[K], undefined | null> } {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined && v !== null)) as { [K in keyof T]?: Exclude<T[K], undefined | null> };
}
