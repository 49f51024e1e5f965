import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** The SHA-256 of an empty payload, used in chunk signatures and for empty bodies. */
export const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/** The only signing algorithm accepted (SigV4A's ECDSA variant is not). */
export const SIGV4_ALGORITHM = "AWS4-HMAC-SHA256";

/** Hex SHA-256 of a string or bytes. */
export function sha256Hex(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Hex HMAC-SHA256 under a signing key: the chunk and trailer signatures of streaming uploads. */
export function hmacSha256Hex(key: Uint8Array, data: string): string {
  return createHmac("sha256", key).update(data, "utf8").digest("hex");
}

/** The `YYYYMMDDTHHMMSSZ` timestamp SigV4 signs. */
export function formatAmzDate(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

/** Parses a `YYYYMMDDTHHMMSSZ` timestamp; undefined when malformed. */
export function parseAmzDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  const date = new Date(Date.UTC(year!, month! - 1, day!, hour, minute, second));
  return formatAmzDate(date) === value ? date : undefined;
}

/** The credential scope `date/region/service/aws4_request` of a signature. */
export interface SigningScope {
  date: string;
  region: string;
  service: string;
}

/** `date/region/service/aws4_request`. */
export function scopeString(scope: SigningScope): string {
  return `${scope.date}/${scope.region}/${scope.service}/aws4_request`;
}

/** The key pair a signature is made with. */
export interface SigningCredential {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Compares two signatures in constant time (for equal lengths). */
export function signaturesEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected, "utf8");
  const b = Buffer.from(given, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}
