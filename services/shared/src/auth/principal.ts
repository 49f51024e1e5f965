import { createHmac, timingSafeEqual } from "node:crypto";
import { unauthenticated } from "../errors";

/** An org the caller belongs to and the roles held there. */
export interface OrgMembership {
  orgId: string;
  roles: string[];
}

/**
 * Who is calling, as established by the gateway. Services trust nothing else: the gateway signs
 * it with the internal key and every service verifies the signature before running a handler.
 */
export interface Principal {
  /**
   * `user` for API callers; `service` for platform components calling each other; `anonymous` for
   * a caller without a token on the few operations that allow it (`hangar.common.v1.anonymous`).
   */
  kind: "user" | "service" | "anonymous";
  /** The user id, or the calling component's name for service principals. */
  subject: string;
  /** The org the call acts in (`X-Service-Org-Id`, or the caller's only org). */
  orgId?: string;
  /** The org named by `X-Service-Resource-Owner-Id`, when given. */
  resourceOwnerId?: string;
  memberships: OrgMembership[];
  isSystemAdmin: boolean;
  tokenId?: string;
  /**
   * The invocation an invocation-scoped token (`hgi_…`) was minted for: what the caller's writes
   * are attributed to (a metric value's `invocation_id`). Only the gateway sets it, from the
   * token's signed claims, so no client can claim an invocation it does not run as.
   */
  invocationId?: string;
  /**
   * Anonymous callers only: the base URL the client reached the gateway at (`PUBLIC_URL`, else the
   * request's Host over http), for URLs an answer hands back to that client.
   */
  publicUrl?: string;
}

/** Header carrying the signed principal between gateway and services. */
export const PRINCIPAL_HEADER = "x-hangar-principal";

/** Signed principals expire quickly so that a captured header cannot be replayed for long. */
const PRINCIPAL_TTL_SECONDS = 60;

interface SignedBody extends Principal {
  exp: number;
}

/** Serialises and signs a principal into the value of `PRINCIPAL_HEADER`. */
export function signPrincipal(principal: Principal, key: string, nowMs = Date.now()): string {
  const body: SignedBody = { ...principal, exp: Math.floor(nowMs / 1000) + PRINCIPAL_TTL_SECONDS };
  const payload = Buffer.from(JSON.stringify(body)).toString("base64url");
  return `${payload}.${mac(payload, key)}`;
}

/** Verifies a `PRINCIPAL_HEADER` value; throws Unauthenticated when it is missing, forged or expired. */
export function verifyPrincipal(header: string | null | undefined, key: string, nowMs = Date.now()): Principal {
  if (!header) throw unauthenticated("missing caller identity");
  const dot = header.indexOf(".");
  const payload = header.slice(0, dot);
  const given = Buffer.from(header.slice(dot + 1), "base64url");
  const expected = Buffer.from(mac(payload, key), "base64url");
  if (dot < 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw unauthenticated("invalid caller identity");
  }
  const { exp, ...principal } = JSON.parse(Buffer.from(payload, "base64url").toString()) as SignedBody;
  if (exp * 1000 < nowMs) throw unauthenticated("expired caller identity");
  return principal;
}

function mac(payload: string, key: string): string {
  return createHmac("sha256", key).update(payload).digest("base64url");
}

/** The roles the principal holds in an org, or undefined when it is not a member. */
export function rolesIn(principal: Pick<Principal, "memberships">, orgId: string): string[] | undefined {
  return principal.memberships.find((m) => m.orgId === orgId)?.roles;
}

/**
 * Whether the principal may administer the org: a system admin, or a member holding `owner` or
 * `admin` (the client SDK's role names; every member also holds `user`).
 */
export function administers(principal: Pick<Principal, "memberships" | "isSystemAdmin">, orgId: string): boolean {
  const roles = rolesIn(principal, orgId);
  return principal.isSystemAdmin || (roles !== undefined && (roles.includes("owner") || roles.includes("admin")));
}

/**
 * A device's tokens act as its user, `device:<universal_device_id>`, a plain member of the
 * device's org (kept by the admin service); no other user may have an id with this prefix.
 */
export const DEVICE_USER_PREFIX = "device:";

/** The id of the user a device's tokens act as. */
export function deviceUserId(universalDeviceId: string): string {
  return `${DEVICE_USER_PREFIX}${universalDeviceId}`;
}

/** Whether a user id names a device's user. */
export function isDeviceUserId(userId: string): boolean {
  return userId.startsWith(DEVICE_USER_PREFIX) && userId.length > DEVICE_USER_PREFIX.length;
}

/**
 * A signer that reuses a principal's signed header while it has more than half its lifetime left.
 * The gateway signs the same cached principal object on every request of a token; signing once per
 * half-TTL instead of per request takes the HMAC and serialisation off the hot path.
 */
export function createPrincipalSigner(key: string): (principal: Principal) => string {
  const signed = new WeakMap<Principal, { header: string; refreshAtMs: number }>();
  return (principal) => {
    const now = Date.now();
    const cached = signed.get(principal);
    if (cached && cached.refreshAtMs > now) return cached.header;
    const header = signPrincipal(principal, key, now);
    signed.set(principal, { header, refreshAtMs: now + (PRINCIPAL_TTL_SECONDS * 1000) / 2 });
    return header;
  };
}

/**
 * A verifier that remembers the headers it has verified until they expire, so a service checks each
 * distinct signed principal once rather than on every call. Bounded: it forgets everything when full.
 */
export function createPrincipalVerifier(key: string, maxEntries = 10_000): (header: string | null | undefined) => Principal {
  const verified = new Map<string, { principal: Principal; expiresAtMs: number }>();
  return (header) => {
    const now = Date.now();
    const cached = header ? verified.get(header) : undefined;
    if (cached && cached.expiresAtMs > now) return cached.principal;
    const principal = verifyPrincipal(header, key, now);
    if (verified.size >= maxEntries) verified.clear();
    verified.set(header!, { principal, expiresAtMs: expiryOf(header!) });
    return principal;
  };
}

function expiryOf(header: string): number {
  const payload = header.slice(0, header.indexOf("."));
  return (JSON.parse(Buffer.from(payload, "base64url").toString()) as SignedBody).exp * 1000;
}
