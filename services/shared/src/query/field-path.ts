// A segment is identifier-ish (digits allowed, so numeric segments can index lists), optionally
// followed by bracket selectors such as `msgpaths[cpuload.load]` that catalogs may interpret.
const SEGMENT = String.raw`[A-Za-z0-9_][A-Za-z0-9_-]*(?:\[[^\[\]]+\])*`;
const FIELD_PATH = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT})*$`);

/** The longest field path accepted; longer ones are rejected rather than hashed or indexed. */
export const MAX_FIELD_PATH_LENGTH = 256;

/** True when `field` is a non-empty dot path of identifier-ish segments (see SEGMENT above). */
export function isValidFieldPath(field: string): boolean {
  return field.length <= MAX_FIELD_PATH_LENGTH && FIELD_PATH.test(field);
}

/**
 * Splits a field path at the dots that are not inside brackets, so
 * `msgpaths[cpuload.load].max` gives `["msgpaths[cpuload.load]", "max"]`.
 */
export function splitFieldPath(field: string): string[] {
  const segments: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < field.length; i++) {
    const ch = field[i];
    if (ch === "[") depth++;
    else if (ch === "]") depth--;
    else if (ch === "." && depth === 0) {
      segments.push(field.slice(start, i));
      start = i + 1;
    }
  }
  segments.push(field.slice(start));
  return segments;
}
