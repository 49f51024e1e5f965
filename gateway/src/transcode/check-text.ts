import { invalidArgument } from "@hangar/shared";

// In a `u` regex a surrogate pair is one code point, so only a lone surrogate matches (String#isWellFormed is ES2024).
const loneSurrogate = /\p{Cs}/u;

/**
 * Refuses text that holds U+0000 or a lone surrogate (a `\ud800` escape). JSON allows both, but
 * PostgreSQL can store U+0000 in neither text nor jsonb, so it would fail deep inside a service as a
 * 500, and protobuf strings are UTF-8, which has no spelling for a lone surrogate (the encoder would
 * silently store U+FFFD). Here each is a 400 that names the field. Returns the text unchanged.
 */
export function checkText(text: string, path: string): string {
  if (text.includes("\u0000")) throw invalidArgument(path, "must not contain the NUL character (U+0000)");
  if (loneSurrogate.test(text)) throw invalidArgument(path, "must not contain a lone UTF-16 surrogate");
  return text;
}
