import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * Creates a prefixed random identifier such as `ds_4k2j...`. Clients infer a resource's type
 * from the prefix (wire notes), so every resource id carries one. 20 base-36 characters give
 * about 103 bits of randomness.
 */
export function newId(prefix: string, length = 20): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length)) {
      // 252 is the largest multiple of 36 below 256: rejecting the rest keeps every character equally likely.
      if (byte < 252 && out.length < length) out += ALPHABET[byte % 36];
    }
  }
  return `${prefix}_${out}`;
}
