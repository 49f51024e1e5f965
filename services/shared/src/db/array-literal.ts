import { ArrayType, type EntityMetadata, type Platform } from "@mikro-orm/core";

/**
 * A PostgreSQL text[] literal (`{"a","b"}`) for a `?::text[]` placeholder. The driver would expand a
 * JavaScript array bound to a raw placeholder into a comma list, which breaks on empty arrays. A
 * null element is written as SQL NULL.
 */
export function textArrayLiteral(values: readonly (string | null)[]): string {
  return `{${values.map((v) => (v === null ? "NULL" : `"${v.replace(/[\\"]/g, "\\$&")}"`)).join(",")}}`;
}

/**
 * MikroORM's `string[]` type, writing every element quoted (through `textArrayLiteral`). The stock
 * one quotes only elements holding `"{},\\` so PostgreSQL trims a `" "` tag to nothing (a 500,
 * "malformed array literal"), stores `"NULL"` as a null element and `" a "` as `"a"`.
 */
export class TextArrayType extends ArrayType<string> {
  override convertToDatabaseValue(value: string[] | null, platform: Platform, context?: unknown): string | null {
    return Array.isArray(value) ? textArrayLiteral(value) : (super.convertToDatabaseValue(value, platform, context as never) as string | null);
  }
}

/**
 * The `discovery.onMetadata` hook of every service's ORM: `string[]` properties get `TextArrayType`
 * (MikroORM would give them its stock ArrayType), so no entity has to remember a custom type.
 */
export function quoteTextArrays(meta: EntityMetadata): void {
  for (const prop of Object.values(meta.properties)) {
    if (prop.type === "string[]" && prop.customType === undefined) prop.customType = new TextArrayType();
  }
}
