import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { awsUriEncode } from "./aws-uri-encode";

/** The SHA-256 of an empty payload, used in chunk signatures and for empty bodies. */
export const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/** The only signing algorithm accepted (SigV4A's ECDSA variant is not). */
export const SIGV4_ALGORITHM = "AWS4-HMAC-SHA256";

/** Hex SHA-256 of a string or bytes. */
export function sha256Hex(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** HMAC-SHA256, the primitive of every SigV4 step. */
export function hmacSha256(key: Buffer | string, data: string): Buffer {
  return createHmac("sha256", key).update(data, "utf8").digest();
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

/** The credential scope `date/region/s3/aws4_request` of a signature. */
export interface SigningScope {
  date: string;
  region: string;
  service: string;
}

/** `date/region/service/aws4_request`. */
export function scopeString(scope: SigningScope): string {
  return `${scope.date}/${scope.region}/${scope.service}/aws4_request`;
}

/** Derives the signing key of a secret for one day, region and service. */
export function deriveSigningKey(secretAccessKey: string, scope: SigningScope): Buffer {
  const dateKey = hmacSha256(`AWS4${secretAccessKey}`, scope.date);
  return hmacSha256(hmacSha256(hmacSha256(dateKey, scope.region), scope.service), "aws4_request");
}

/** The string to sign of a request: algorithm, timestamp, scope and the canonical request's hash. */
export function requestStringToSign(amzDate: string, scope: SigningScope, canonicalRequest: string): string {
  return [SIGV4_ALGORITHM, amzDate, scopeString(scope), sha256Hex(canonicalRequest)].join("\n");
}

/** Canonical query string: names and values encoded, sorted by name then value. */
export function canonicalQueryString(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs
    .map(([name, value]) => [awsUriEncode(name), awsUriEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

/** What goes into a canonical request. */
export interface CanonicalRequestParts {
  method: string;
  canonicalUri: string;
  query: ReadonlyArray<readonly [string, string]>;
  /** Lower-case names, in the order they are signed (sorted). */
  signedHeaders: readonly string[];
  /** Header values by lower-case name, already joined with "," when repeated. */
  headerValues: ReadonlyMap<string, string>;
  payloadHash: string;
}

/** The SigV4 canonical request. Header values are trimmed and inner runs of spaces collapsed. */
export function canonicalRequest(parts: CanonicalRequestParts): string {
  const headers = parts.signedHeaders.map(
    (name) => `${name}:${(parts.headerValues.get(name) ?? "").trim().replace(/ +/g, " ")}\n`,
  );
  return [
    parts.method,
    parts.canonicalUri,
    canonicalQueryString(parts.query),
    headers.join(""),
    parts.signedHeaders.join(";"),
    parts.payloadHash,
  ].join("\n");
}

/** Compares two hex signatures in constant time (for equal lengths). */
export function signaturesEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected, "utf8");
  const b = Buffer.from(given, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}
