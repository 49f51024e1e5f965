import type { IncomingHttpHeaders } from "node:http";
import type { ObjectMetadata } from "./disk-store";
import { S3Error } from "./s3-error";

/**
 * Evaluates `If-Match`, `If-Unmodified-Since`, `If-None-Match` and `If-Modified-Since` (in RFC 9110's order)
 * for a GET or HEAD: a failed match is 412 PreconditionFailed, an unchanged object "not-modified" (304).
 * Download tools send If-Match on ranged GETs so that a replaced object is not stitched from two versions.
 */
export function evaluatePreconditions(headers: IncomingHttpHeaders, metadata: ObjectMetadata): "proceed" | "not-modified" {
  const modified = Math.floor(Date.parse(metadata.lastModified) / 1000) * 1000;
  const ifMatch = headers["if-match"];
  if (ifMatch !== undefined && !etagListMatches(ifMatch, metadata.etag)) throw failed("If-Match");
  const ifUnmodifiedSince = parseHttpDate(headers["if-unmodified-since"]);
  if (ifMatch === undefined && ifUnmodifiedSince !== undefined && modified > ifUnmodifiedSince) throw failed("If-Unmodified-Since");
  const ifNoneMatch = headers["if-none-match"];
  if (ifNoneMatch !== undefined) return etagListMatches(ifNoneMatch, metadata.etag) ? "not-modified" : "proceed";
  const ifModifiedSince = parseHttpDate(headers["if-modified-since"]);
  return ifModifiedSince !== undefined && modified <= ifModifiedSince ? "not-modified" : "proceed";
}

function etagListMatches(list: string, etag: string): boolean {
  const bare = etag.replace(/"/g, "");
  return list.split(",").some((candidate) => {
    const value = candidate.trim().replace(/^W\//, "").replace(/"/g, "");
    return value === "*" || value === bare;
  });
}

function parseHttpDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? undefined : parsed;
}

function failed(condition: string): S3Error {
  return new S3Error("PreconditionFailed", "At least one of the pre-conditions you specified did not hold.", { Condition: condition });
}
