import { escapeUriPath, HttpRequest } from "@smithy/core/protocols";
import { getCanonicalQuery } from "@smithy/signature-v4";
import { createS3Signer, groupQuery } from "./s3-signer";
import type { SigningCredential } from "./sigv4";

/** What a presigned URL is made of. */
export interface PresignOptions {
  method: "GET" | "PUT";
  /** Base URL of the endpoint, without a path. */
  endpoint: string;
  /** The resource, not yet encoded: `/bucket/key` for path-style addressing. */
  path: string;
  region: string;
  credential: SigningCredential & { sessionToken?: string };
  expiresInSeconds: number;
  now: Date;
  /** Extra signed query parameters, such as `response-content-disposition`. */
  query?: ReadonlyArray<readonly [string, string]>;
}

/** The longest validity SigV4 allows a presigned URL (seven days). */
export const MAX_PRESIGN_SECONDS = 604_800;

/**
 * A path-style SigV4 query-string-authenticated URL (`X-Amz-Signature`) from the AWS SDK's signer,
 * signing only the host header and an unsigned payload, as the SDKs' S3 presigners do.
 */
export async function presignUrl(options: PresignOptions): Promise<string> {
  const base = new URL(options.endpoint);
  const signer = createS3Signer(options.credential, options.region);
  // Lone surrogates become U+FFFD, as UTF-8 encoding makes them (escapeUri alone would throw).
  const path = escapeUriPath(Buffer.from(options.path, "utf8").toString("utf8"));
  const request = new HttpRequest({
    method: options.method,
    path,
    query: groupQuery(options.query ?? []),
    headers: { host: base.host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
  });
  const noPayloadHeader = new Set(["x-amz-content-sha256"]);
  const presigned = await signer.presign(request, {
    signingDate: options.now,
    expiresIn: options.expiresInSeconds,
    unsignableHeaders: noPayloadHeader,
    unhoistableHeaders: noPayloadHeader,
  });
  // The canonical query leaves the signature out; it goes last, as the SDKs' presigners put it.
  return `${base.origin}${path}?${getCanonicalQuery(presigned)}&X-Amz-Signature=${String(presigned.query!["X-Amz-Signature"])}`;
}

