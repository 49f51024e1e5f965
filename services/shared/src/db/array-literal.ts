/**
 * A PostgreSQL text[] literal (`{"a","b"}`) for a `?::text[]` placeholder. The driver would expand a
 * JavaScript array bound to a raw placeholder into a comma list, which breaks on empty arrays.
 */
export function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`;
}
