import { badRequest } from "@hangar/shared";

/**
 * Percent-decodes one raw path segment exactly once (`dir%2Fa.txt` becomes `dir/a.txt`; `+` stays `+`).
 * Invalid escapes or bytes that are not UTF-8 are a 400.
 */
export function decodeSegment(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badRequest(`invalid percent-encoding in path segment '${raw}'`);
  }
}

/**
 * Decodes a raw segment that the client encoded with "plus" semantics (Python's `quote_plus`):
 * `+` means a space and `%2B` a plus. Give it the raw value, never an already decoded one.
 */
export function decodePlusSegment(raw: string): string {
  return decodeSegment(raw.includes("+") ? raw.replace(/\+/g, " ") : raw);
}
