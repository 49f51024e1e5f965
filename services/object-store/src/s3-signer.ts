import { HttpRequest } from "@smithy/core/protocols";
import { Hash } from "@smithy/core/serde";
import { getCanonicalHeaders, getSigningKey, SignatureV4 } from "@smithy/signature-v4";
import type { HeaderBag, HttpRequest as HttpRequestParts } from "@smithy/types";
import type { SigningCredential, SigningScope } from "./sigv4";

/** The hash the signer uses: Node's SHA-256 (HMAC when given a key), as the AWS SDK's Node clients configure it. */
const Sha256 = Hash.bind(null, "sha256");

/**
 * The AWS SDK's SigV4 signer (`@smithy/signature-v4`) for one key pair, set up as S3 signs: the path as
 * sent, neither normalised nor encoded a second time.
 */
export function createS3Signer(credential: SigningCredential & { sessionToken?: string }, region: string): SignatureV4 {
  return new SignatureV4(s3SignerInit(credential, region, "s3"));
}

function s3SignerInit(credential: SigningCredential & { sessionToken?: string }, region: string, service: string): ConstructorParameters<typeof SignatureV4>[0] {
  return { credentials: credential, region, service, sha256: Sha256, uriEscapePath: false, applyChecksum: false };
}

/**
 * The signer as the verifier uses it: it keeps the canonical request and string to sign of its last
 * signature (S3 returns both in SignatureDoesNotMatch errors), and puts back a `Date` header the client
 * signed, which the library drops from every request because it adds its own `X-Amz-Date` (the AWS
 * documentation's PUT example signs both).
 */
class VerifyingSigner extends SignatureV4 {
  recorded = { canonicalRequest: "", stringToSign: "" };

  constructor(
    init: ConstructorParameters<typeof SignatureV4>[0],
    private readonly signedDateHeader: string | undefined,
  ) {
    super(init);
  }

  protected override createCanonicalRequest(request: HttpRequestParts, canonicalHeaders: HeaderBag, payloadHash: string): string {
    const date = this.signedDateHeader === undefined ? {} : getCanonicalHeaders({ ...request, headers: { date: this.signedDateHeader } });
    return super.createCanonicalRequest(request, { ...canonicalHeaders, ...date }, payloadHash);
  }

  protected override async createStringToSign(longDate: string, credentialScope: string, canonicalRequest: string, algorithm: string): Promise<string> {
    const stringToSign = await super.createStringToSign(longDate, credentialScope, canonicalRequest, algorithm);
    this.recorded = { canonicalRequest, stringToSign };
    return stringToSign;
  }
}

/**
 * Headers the signer adds to every request it signs; they enter the signature only when the client
 * signed them, so that what is recomputed is exactly what the client signed.
 */
const SIGNER_ADDED_HEADERS: ReadonlySet<string> = new Set(["x-amz-date", "x-amz-content-sha256", "x-amz-security-token"]);

/** The signing key of a secret for one day, region and service (derived and cached by the AWS signer library). */
export function deriveSigningKey(credential: SigningCredential, scope: SigningScope): Promise<Uint8Array> {
  return getSigningKey(Sha256, credential, scope.date, scope.region, scope.service);
}

/** A request as a SigV4 signature covers it. */
export interface SignedRequestParts {
  method: string;
  /** The path exactly as signed: already percent-encoded, not normalised (S3's rule). */
  path: string;
  query: ReadonlyArray<readonly [string, string]>;
  /** Lower-case names of the headers the client signed. */
  signedHeaders: readonly string[];
  /** Header values by lower-case name, repeated headers joined with ","; a signed header that is absent counts as empty. */
  headerValues: ReadonlyMap<string, string>;
  /** The payload hash that was signed: hex, `UNSIGNED-PAYLOAD` or a `STREAMING-*` mode. */
  payloadHash: string;
}

/** A recomputed signature, with the canonical request and string to sign it was made from. */
export interface ComputedSignature {
  signature: string;
  canonicalRequest: string;
  stringToSign: string;
}

/**
 * Recomputes the hex SigV4 signature of a request with the AWS SDK's own signer (`@smithy/signature-v4`),
 * over exactly the headers the client signed, at the request's own time and scope; the caller compares
 * it with the one sent, in constant time (`signaturesEqual`).
 */
export async function computeSignature(parts: SignedRequestParts, credential: SigningCredential, signingDate: Date, scope: SigningScope): Promise<ComputedSignature> {
  const signed = new Set(parts.signedHeaders);
  const signer = new VerifyingSigner(s3SignerInit(credential, scope.region, scope.service), signed.has("date") ? (parts.headerValues.get("date") ?? "") : undefined);
  const headers = Object.fromEntries(parts.signedHeaders.map((name) => [name, parts.headerValues.get(name) ?? ""]));
  if (!signed.has("x-amz-content-sha256")) headers["x-amz-content-sha256"] = parts.payloadHash;
  const request = new HttpRequest({ method: parts.method, path: parts.path, query: groupQuery(parts.query), headers });
  const result = await signer.sign(request, {
    signingDate,
    signingRegion: scope.region,
    signingService: scope.service,
    signableHeaders: signed,
    unsignableHeaders: new Set([...SIGNER_ADDED_HEADERS].filter((name) => !signed.has(name))),
  });
  const signature = /Signature=([0-9a-f]+)$/.exec(String(result.headers.authorization))![1]!;
  return { signature, ...signer.recorded };
}

/** Query pairs as the signer takes them: a repeated name becomes a list of its values. */
export function groupQuery(pairs: ReadonlyArray<readonly [string, string]>): Record<string, string | string[]> {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of pairs) grouped.set(name, [...(grouped.get(name) ?? []), value]);
  return Object.fromEntries([...grouped].map(([name, values]) => [name, values.length === 1 ? values[0]! : values]));
}
