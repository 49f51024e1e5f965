import { awsUriEncode } from "./aws-uri-encode";
import {
  canonicalQueryString,
  canonicalRequest,
  deriveSigningKey,
  formatAmzDate,
  hmacSha256,
  requestStringToSign,
  SIGV4_ALGORITHM,
  type SigningScope,
} from "./sigv4";

/** The longest validity SigV4 allows a presigned URL (seven days). */
export const MAX_PRESIGN_SECONDS = 604_800;

/** What a presigned URL is made of. */
export interface PresignUrlOptions {
  method: "GET" | "PUT";
  /** Base URL of the endpoint, without a path. */
  endpoint: string;
  /** The resource, not yet encoded: `/bucket/key` for path-style addressing. */
  path: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiresInSeconds: number;
  now: Date;
  /** Extra signed query parameters, such as `response-content-disposition`. */
  query?: ReadonlyArray<readonly [string, string]>;
}

/**
 * A path-style SigV4 query-string-authenticated URL (`X-Amz-Signature`), signing only the host header and
 * an unsigned payload, as the AWS SDKs' presigners do.
 */
export function presignUrl(options: PresignUrlOptions): string {
  const base = new URL(options.endpoint);
  const amzDate = formatAmzDate(options.now);
  const scope: SigningScope = { date: amzDate.slice(0, 8), region: options.region, service: "s3" };
  const query: Array<readonly [string, string]> = [
    ...(options.query ?? []),
    ["X-Amz-Algorithm", SIGV4_ALGORITHM],
    ["X-Amz-Credential", `${options.accessKeyId}/${scope.date}/${scope.region}/s3/aws4_request`],
    ["X-Amz-Date", amzDate],
    ["X-Amz-Expires", String(options.expiresInSeconds)],
    ["X-Amz-SignedHeaders", "host"],
  ];
  if (options.sessionToken !== undefined) query.push(["X-Amz-Security-Token", options.sessionToken]);
  const path = awsUriEncode(options.path, true);
  const canonical = canonicalRequest({
    method: options.method,
    canonicalUri: path,
    query,
    signedHeaders: ["host"],
    headerValues: new Map([["host", base.host]]),
    payloadHash: "UNSIGNED-PAYLOAD",
  });
  const signature = hmacSha256(
    deriveSigningKey(options.secretAccessKey, scope),
    requestStringToSign(amzDate, scope, canonical),
  ).toString("hex");
  return `${base.origin}${path}?${canonicalQueryString(query)}&X-Amz-Signature=${signature}`;
}
