import { invalidArgument } from "@hangar/shared";

/**
 * Refuses text that holds U+0000. JSON and protobuf allow it, but PostgreSQL can store it in
 * neither text nor jsonb, so it would fail deep inside a service as a 500; here it is a 400 that
 * names the field. Returns the text unchanged.
 */
export function checkText(text: string, path: string): string {
  if (text.includes("\u0000")) throw invalidArgument(path, "must not contain the NUL character (U+0000)");
  return text;
}
