import { createHmac, timingSafeEqual } from "node:crypto";
import { unauthenticated, quoteValue } from "../errors";

/** Every invocation-scoped token starts with this, so the admin service can tell it from a stored API token. */
export const INVOCATION_TOKEN_PREFIX = "hgi_";

/** What an invocation-scoped token grants: act as `userId` in `orgId` while the invocation may still run. */
export interface InvocationTokenClaims {
  orgId: string;
  userId: string;
  invocationId: string;
  /** Unix seconds after which the token no longer authenticates. */
  exp: number;
}

interface SignedClaims {
  org_id: string;
  user_id: string;
  invocation_id: string;
  exp: number;
}

/**
 * Mints the API token a runner hands to an action (`ROBOTO_API_KEY`): `hgi_<payload>.<hmac>`,
 * signed with the internal key. It is self-verifying, so nothing is stored and it dies on its own
 * at `exp`.
 */
export function mintInvocationToken(claims: InvocationTokenClaims, key: string): string {
  const body: SignedClaims = { org_id: claims.orgId, user_id: claims.userId, invocation_id: claims.invocationId, exp: claims.exp };
  const payload = Buffer.from(JSON.stringify(body)).toString("base64url");
  return `${INVOCATION_TOKEN_PREFIX}${payload}.${mac(payload, key)}`;
}

/**
 * Whether a caller is an action the platform runs: authenticated by an invocation token, whose
 * invocation the gateway signs into the principal (never taken from a request).
 */
export function actsForInvocation(caller: { invocationId?: string | undefined }): boolean {
  return (caller.invocationId ?? "") !== "";
}

/** Whether a bearer secret has the shape of an invocation-scoped token. */
export function isInvocationToken(secret: string): boolean {
  return secret.startsWith(INVOCATION_TOKEN_PREFIX);
}

/** Checks an invocation-scoped token's signature and expiry; throws Unauthenticated otherwise. */
export function verifyInvocationToken(token: string, key: string, nowMs = Date.now()): InvocationTokenClaims {
  const [payload = "", signature = ""] = token.slice(INVOCATION_TOKEN_PREFIX.length).split(".");
  const given = Buffer.from(signature, "base64url");
  const expected = Buffer.from(mac(payload, key), "base64url");
  if (!isInvocationToken(token) || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw unauthenticated("invalid invocation token");
  }
  const body = JSON.parse(Buffer.from(payload, "base64url").toString()) as SignedClaims;
  if (body.exp * 1000 <= nowMs) throw unauthenticated(`invocation token of ${quoteValue(body.invocation_id)} expired`);
  return { orgId: body.org_id, userId: body.user_id, invocationId: body.invocation_id, exp: body.exp };
}

// A purpose label keeps these MACs apart from the principal header's, which share the key.
function mac(payload: string, key: string): string {
  return createHmac("sha256", key).update(`invocation-token:${payload}`).digest("base64url");
}
