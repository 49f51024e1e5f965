/**
 * Percent-encodes a string the way SigV4 canonical requests do: every UTF-8 byte except the unreserved
 * characters (A-Z a-z 0-9 - . _ ~) becomes %XX in upper case; slashes are kept when `keepSlash` is set
 * (object paths), encoded otherwise (query names and values).
 */
export function awsUriEncode(value: string, keepSlash = false): string {
  let encoded = "";
  for (const byte of Buffer.from(value, "utf8")) {
    const char = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(char) || (keepSlash && char === "/")) encoded += char;
    else encoded += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}
