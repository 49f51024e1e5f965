import { createHmac } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { AuthenticatedRequest, AuthenticationContext } from "./authenticate-request";
import type { StoredCredential } from "./credential-store";
import type { RequestTarget } from "./request-target";
import { S3Error } from "./s3-error";
import { signaturesEqual } from "./sigv4";

/** The query parameters S3's legacy signature puts into the signed resource (the others are left out). */
const SIGNED_SUBRESOURCES = new Set([
  "acl", "delete", "lifecycle", "location", "logging", "notification", "partNumber", "policy", "requestPayment",
  "response-cache-control", "response-content-disposition", "response-content-encoding", "response-content-language",
  "response-content-type", "response-expires", "restore", "tagging", "torrent", "uploadId", "uploads", "versionId",
  "versioning", "versions", "website",
]);

/** Whether a request is presigned with the legacy signature (`AWSAccessKeyId`, `Signature`, `Expires`). */
export function isSigV2Query(req: IncomingMessage, target: RequestTarget): boolean {
  return req.headers.authorization === undefined && target.query.some(([name]) => name === "AWSAccessKeyId");
}

/**
 * Checks a legacy (SigV2) presigned URL: boto3's `generate_presigned_url` makes these unless told to use
 * SigV4, so URLs that Python users presign with issued credentials work. Only the query form is accepted,
 * with the same credential checks as SigV4: known key, session token, unexpired credential, and `Expires`.
 */
export function authenticateSigV2Query(
  req: IncomingMessage,
  target: RequestTarget,
  context: AuthenticationContext,
  checkCredential: (accessKeyId: string, token: string | undefined) => StoredCredential,
): AuthenticatedRequest {
  const param = (name: string): string | undefined => target.query.find(([n]) => n === name)?.[1];
  const accessKeyId = param("AWSAccessKeyId") ?? "";
  const signature = param("Signature");
  const expires = param("Expires");
  if (signature === undefined || expires === undefined || !/^\d{1,12}$/.test(expires)) {
    throw new S3Error("AccessDenied", "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters.");
  }
  const credential = checkCredential(accessKeyId, param("x-amz-security-token") ?? header(req, "x-amz-security-token"));
  const now = context.now().getTime();
  if (Number(expires) * 1000 < now) throw new S3Error("AccessDenied", "Request has expired.", { Expires: new Date(Number(expires) * 1000).toISOString() });
  if (Number(expires) * 1000 > now + 604_800_000) throw new S3Error("AccessDenied", "Presigned URLs may last at most seven days.");
  // Clients such as urllib add a Content-Type the signer never saw; the signature without one is tried too.
  const contentTypes = [...new Set([header(req, "content-type") ?? "", ""])];
  const matches = contentTypes.some((contentType) => {
    const stringToSign = [req.method ?? "GET", header(req, "content-md5") ?? "", contentType, expires, amzHeaders(req, target) + resource(target)].join("\n");
    const expected = createHmac("sha1", credential.secretAccessKey).update(stringToSign, "utf8").digest("base64");
    return signaturesEqual(expected, signature);
  });
  if (!matches) {
    throw new S3Error("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.", { AWSAccessKeyId: accessKeyId });
  }
  const payloadHash = header(req, "x-amz-content-sha256") ?? "UNSIGNED-PAYLOAD";
  // No chunk signatures can be chained from a legacy signature: an empty key makes any such body fail.
  return { credential, payloadHash, signing: { key: Buffer.alloc(0), amzDate: "", scope: "", seedSignature: "" } };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** `x-amz-*` headers and query parameters (the token travels in the query), sorted, one `name:value\n` each. */
function amzHeaders(req: IncomingMessage, target: RequestTarget): string {
  const values = new Map<string, string[]>();
  const add = (name: string, value: string): void => {
    values.set(name, [...(values.get(name) ?? []), value.trim()]);
  };
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith("x-amz-") && value !== undefined) add(name, Array.isArray(value) ? value.join(",") : value);
  }
  for (const [name, value] of target.query) if (name.toLowerCase().startsWith("x-amz-")) add(name.toLowerCase(), value);
  return [...values.keys()].sort().map((name) => `${name}:${values.get(name)!.join(",")}\n`).join("");
}

function resource(target: RequestTarget): string {
  const subresources = target.query
    .filter(([name]) => SIGNED_SUBRESOURCES.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => (value === "" ? name : `${name}=${value}`));
  return subresources.length === 0 ? target.rawPath : `${target.rawPath}?${subresources.join("&")}`;
}
