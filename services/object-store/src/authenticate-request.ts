import type { IncomingMessage } from "node:http";
import { escapeUriPath } from "@smithy/core/protocols";
import { authenticateSigV2Query, isSigV2Query } from "./authenticate-sigv2-query";
import type { ChunkSigning } from "./aws-chunked-decoder";
import type { CredentialStore, StoredCredential } from "./credential-store";
import { parseSignature, type SignatureFields } from "./parse-signature";
import type { RequestTarget } from "./request-target";
import { S3Error } from "./s3-error";
import { computeSignature, deriveSigningKey, type ComputedSignature } from "./s3-signer";
import { parseAmzDate, scopeString, signaturesEqual } from "./sigv4";

/** How far a request's timestamp may be from the server's clock, as S3 allows. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/** A request whose signature checked out, with what the body decoder needs to verify chunk signatures. */
export interface AuthenticatedRequest {
  credential: StoredCredential;
  /** The payload hash the client declared: hex, `UNSIGNED-PAYLOAD` or a `STREAMING-*` mode. */
  payloadHash: string;
  signing: ChunkSigning;
}

/**
 * What a request must be signed for: S3 by default; STS calls (`service: "sts"`) come with the hash of
 * the body already read, since STS clients sign the body without declaring its hash in a header.
 */
export interface SignedFor {
  service: "s3" | "sts";
  payloadHash?: string;
}

/** What {@link authenticateRequest} checks against. */
export interface AuthenticationContext {
  credentials: CredentialStore;
  region: string;
  now: () => Date;
}

/**
 * Checks a request's SigV4 signature (header or presigned query) against the credentials the platform
 * issued: known key, matching session token, unexpired credential, timestamp within the allowed skew
 * (or presigned validity), then the signature itself, recomputed by the AWS SDK's signer and compared
 * in constant time. Legacy presigned URLs (boto3's default) go through {@link authenticateSigV2Query}
 * with the same credential checks.
 */
export async function authenticateRequest(
  req: IncomingMessage,
  target: RequestTarget,
  context: AuthenticationContext,
  signed: SignedFor = { service: "s3" },
): Promise<AuthenticatedRequest> {
  const checkCredential = (accessKeyId: string, token: string | undefined): StoredCredential => {
    const credential = context.credentials.find(accessKeyId);
    if (credential === undefined) {
      throw new S3Error("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.", {
        AWSAccessKeyId: accessKeyId,
      });
    }
    checkToken(credential, token);
    if (credential.expiration !== undefined && credential.expiration.getTime() <= context.now().getTime()) {
      throw new S3Error("ExpiredToken", "The provided token has expired.");
    }
    return credential;
  };
  if (isSigV2Query(req, target)) return authenticateSigV2Query(req, target, context, checkCredential);
  const fields = parseSignature(req.headers, target.query);
  const requestTime = checkScope(fields, context.region, signed.service);
  const credential = checkCredential(fields.accessKeyId, fields.securityToken);
  checkTime(fields, requestTime, context.now());
  const contentSha256 = req.headers["x-amz-content-sha256"];
  const payloadHash = signed.payloadHash ?? signedPayloadHash(fields, typeof contentSha256 === "string" ? contentSha256 : undefined);
  const headerValues = collectHeaders(req.rawHeaders);
  let firstAttempt: ComputedSignature | undefined;
  for (const path of candidatePaths(target.rawPath)) {
    const parts = { method: req.method ?? "GET", path, query: target.query, signedHeaders: fields.signedHeaders, headerValues, payloadHash };
    const computed = await computeSignature(parts, credential, requestTime, fields.scope);
    if (signaturesEqual(computed.signature, fields.signature.toLowerCase())) {
      // The body is decoded by what the client declares it sent, signed or not.
      const declared = typeof contentSha256 === "string" ? contentSha256 : payloadHash;
      const key = await deriveSigningKey(credential, fields.scope);
      return { credential, payloadHash: declared, signing: { key, amzDate: fields.amzDate!, scope: scopeString(fields.scope), seedSignature: computed.signature } };
    }
    firstAttempt ??= computed;
  }
  throw new S3Error(
    "SignatureDoesNotMatch",
    "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    { AWSAccessKeyId: fields.accessKeyId, StringToSign: firstAttempt!.stringToSign, CanonicalRequest: firstAttempt!.canonicalRequest },
  );
}

function checkScope(fields: SignatureFields, region: string, service: string): Date {
  const requestTime = fields.amzDate === undefined ? undefined : parseAmzDate(fields.amzDate);
  if (requestTime === undefined) {
    throw new S3Error("AccessDenied", "AWS authentication requires a valid x-amz-date header or X-Amz-Date parameter.");
  }
  const code = fields.presigned ? "AuthorizationQueryParametersError" : "AuthorizationHeaderMalformed";
  if (fields.scope.date !== fields.amzDate!.slice(0, 8)) {
    throw new S3Error(code, "The credential scope's date does not match the request's date.");
  }
  if (fields.scope.region !== region) {
    throw new S3Error(code, `The region '${fields.scope.region}' is wrong; expecting '${region}'.`, { Region: region });
  }
  if (fields.scope.service !== service) {
    throw new S3Error(code, `The service '${fields.scope.service.slice(0, 64)}' is wrong; expecting '${service}'.`);
  }
  return requestTime;
}

function checkToken(credential: StoredCredential, given: string | undefined): void {
  const expected = credential.sessionToken;
  const matches = expected === undefined ? given === undefined : given !== undefined && signaturesEqual(expected, given);
  if (!matches) throw new S3Error("InvalidToken", "The provided token is malformed or otherwise invalid.");
}

function checkTime(fields: SignatureFields, requestTime: Date, now: Date): void {
  const skew = requestTime.getTime() - now.getTime();
  if (fields.expiresInSeconds === undefined) {
    if (Math.abs(skew) > MAX_CLOCK_SKEW_MS) {
      throw new S3Error("RequestTimeTooSkewed", "The difference between the request time and the current time is too large.", {
        RequestTime: requestTime.toISOString(),
        ServerTime: now.toISOString(),
        MaxAllowedSkewMilliseconds: String(MAX_CLOCK_SKEW_MS),
      });
    }
    return;
  }
  if (skew > MAX_CLOCK_SKEW_MS) throw new S3Error("AccessDenied", "Request is not valid yet.");
  const expires = new Date(requestTime.getTime() + fields.expiresInSeconds * 1000);
  if (now.getTime() > expires.getTime()) {
    throw new S3Error("AccessDenied", "Request has expired.", {
      "X-Amz-Expires": String(fields.expiresInSeconds),
      Expires: expires.toISOString(),
      ServerTime: now.toISOString(),
    });
  }
}

/** The payload hash that went into the signature: presigned URLs sign an unsigned payload unless told otherwise. */
function signedPayloadHash(fields: SignatureFields, header: string | undefined): string {
  if (fields.payloadHash !== undefined) return fields.payloadHash;
  if (header !== undefined && (!fields.presigned || fields.signedHeaders.includes("x-amz-content-sha256"))) return header;
  if (fields.presigned) return "UNSIGNED-PAYLOAD";
  throw new S3Error("InvalidRequest", "Missing required header for this request: x-amz-content-sha256.");
}

/** Header values by lower-case name; repeated headers are joined with commas, as SigV4 specifies. */
function collectHeaders(rawHeaders: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!.trim();
    const previous = values.get(name);
    values.set(name, previous === undefined ? value : `${previous},${value}`);
  }
  return values;
}

/**
 * S3 signs the path as sent, encoded once. Clients that encode a character AWS would leave alone (or the
 * reverse) sign their own spelling, which is tried first; the AWS-canonical spelling second.
 */
function candidatePaths(rawPath: string): string[] {
  let canonical: string;
  try {
    canonical = escapeUriPath(decodeURIComponent(rawPath));
  } catch {
    return [rawPath];
  }
  return canonical === rawPath ? [rawPath] : [rawPath, canonical];
}
