import type { IncomingHttpHeaders } from "node:http";
import { S3Error } from "./s3-error";
import { SIGV4_ALGORITHM, type SigningScope } from "./sigv4";

/** The SigV4 fields of a request, from its `Authorization` header or its presigned query. */
export interface SignatureFields {
  presigned: boolean;
  accessKeyId: string;
  scope: SigningScope;
  signedHeaders: string[];
  signature: string;
  amzDate: string | undefined;
  securityToken: string | undefined;
  /** Presigned only: the validity in seconds (`X-Amz-Expires`). */
  expiresInSeconds: number | undefined;
  /** Presigned only: `X-Amz-Content-Sha256`, when the signer put it in the query. */
  payloadHash: string | undefined;
}

/** Reads the signature fields; anonymous requests, SigV2 and malformed fields are refused here. */
export function parseSignature(
  headers: IncomingHttpHeaders,
  query: ReadonlyArray<readonly [string, string]>,
): SignatureFields {
  const param = (name: string): string | undefined => query.find(([n]) => n === name)?.[1];
  const authorization = headers.authorization;
  const algorithm = param("X-Amz-Algorithm");
  if (authorization !== undefined && algorithm !== undefined) {
    throw new S3Error("InvalidArgument", "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter or the Authorization header should be specified.");
  }
  if (authorization !== undefined) return parseAuthorizationHeader(authorization, headers);
  if (algorithm !== undefined) return parsePresignedQuery(algorithm, param);
  throw new S3Error("AccessDenied", "Anonymous access is not allowed; sign requests with AWS Signature Version 4.");
}

function parseAuthorizationHeader(authorization: string, headers: IncomingHttpHeaders): SignatureFields {
  const space = authorization.indexOf(" ");
  if (space < 0 || authorization.slice(0, space) !== SIGV4_ALGORITHM) throw unsupportedMechanism();
  const fields = new Map<string, string>();
  for (const part of authorization.slice(space + 1).split(",")) {
    const equals = part.indexOf("=");
    if (equals > 0) fields.set(part.slice(0, equals).trim(), part.slice(equals + 1).trim());
  }
  const credential = fields.get("Credential");
  const signedHeaders = fields.get("SignedHeaders");
  const signature = fields.get("Signature");
  if (credential === undefined || signedHeaders === undefined || signature === undefined) {
    throw new S3Error("AuthorizationHeaderMalformed", "The authorization header is malformed; it needs Credential, SignedHeaders and Signature.");
  }
  return {
    presigned: false,
    ...parseCredential(credential, "AuthorizationHeaderMalformed"),
    signedHeaders: parseSignedHeaders(signedHeaders, "AuthorizationHeaderMalformed"),
    signature,
    amzDate: single(headers["x-amz-date"]),
    securityToken: single(headers["x-amz-security-token"]),
    expiresInSeconds: undefined,
    payloadHash: undefined,
  };
}

function parsePresignedQuery(algorithm: string, param: (name: string) => string | undefined): SignatureFields {
  if (algorithm !== SIGV4_ALGORITHM) throw unsupportedMechanism();
  const credential = param("X-Amz-Credential");
  const signedHeaders = param("X-Amz-SignedHeaders");
  const signature = param("X-Amz-Signature");
  const expires = param("X-Amz-Expires");
  if (credential === undefined || signedHeaders === undefined || signature === undefined || expires === undefined) {
    throw new S3Error("AuthorizationQueryParametersError", "Query-string authentication requires the X-Amz-Credential, X-Amz-SignedHeaders, X-Amz-Signature, X-Amz-Date and X-Amz-Expires parameters.");
  }
  const expiresInSeconds = /^\d{1,7}$/.test(expires) ? Number(expires) : NaN;
  if (!(expiresInSeconds >= 1 && expiresInSeconds <= 604_800)) {
    throw new S3Error("AuthorizationQueryParametersError", "X-Amz-Expires must be a number of seconds from 1 to 604800.");
  }
  return {
    presigned: true,
    ...parseCredential(credential, "AuthorizationQueryParametersError"),
    signedHeaders: parseSignedHeaders(signedHeaders, "AuthorizationQueryParametersError"),
    signature,
    amzDate: param("X-Amz-Date"),
    securityToken: param("X-Amz-Security-Token"),
    expiresInSeconds,
    payloadHash: param("X-Amz-Content-Sha256"),
  };
}

type MalformedCode = "AuthorizationHeaderMalformed" | "AuthorizationQueryParametersError";

function parseCredential(value: string, code: MalformedCode): { accessKeyId: string; scope: SigningScope } {
  const parts = value.split("/");
  if (parts.length !== 5 || parts[4] !== "aws4_request" || !/^\d{8}$/.test(parts[1]!) || parts[0] === "") {
    throw new S3Error(code, "The credential is malformed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".");
  }
  return { accessKeyId: parts[0]!, scope: { date: parts[1]!, region: parts[2]!, service: parts[3]! } };
}

function parseSignedHeaders(value: string, code: MalformedCode): string[] {
  const names = value.split(";").map((name) => name.trim().toLowerCase());
  if (!names.includes("host")) throw new S3Error(code, "The host header must be signed.");
  return names;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function unsupportedMechanism(): S3Error {
  return new S3Error("InvalidRequest", "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.");
}
