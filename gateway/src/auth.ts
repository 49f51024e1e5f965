import { Code, ConnectError } from "@connectrpc/connect";
import type { Context } from "@opentelemetry/api";
import { unauthenticated, type OrgMembership, type Principal } from "@hangar/shared";
import type { AuthenticateTokenResponse, ResolveUserResponse } from "@hangar/shared/proto/admin";
import type { IdentityHeaders } from "./headers";

/** A verified user and the orgs they belong to. */
interface Identity {
  userId: string;
  tokenId?: string;
  /** Set for an invocation-scoped token: the invocation it was minted for. */
  invocationId?: string;
  isSystemAdmin: boolean;
  memberships: OrgMembership[];
}

/** Options of the gateway's authenticator. */
export interface AuthenticatorOptions {
  /** The admin service's AuthenticateToken RPC, called as the gateway itself within the request's trace. */
  authenticateToken: (secret: string, traceContext: Context) => Promise<AuthenticateTokenResponse>;
  /** The admin service's ResolveUser RPC, called as the gateway itself within the request's trace. */
  resolveUser: (userId: string, traceContext: Context) => Promise<ResolveUserResponse>;
  /** How long a verified token is trusted without asking the admin service again. */
  ttlMs: number;
  /** Most cached entries; the oldest is dropped beyond it. */
  maxEntries?: number;
}

/** Turns request headers into the principal forwarded to services. */
export type Authenticator = (headers: IdentityHeaders, traceContext: Context) => Promise<Principal>;

/**
 * Authenticates `Authorization: Bearer <secret>` with the admin service, caching verified tokens
 * for `ttlMs` (so a revoked token stops working within that time), then applies the identity
 * headers: `X-Service-User-Id` (acting as another user: system admins only), `X-Service-Org-Id`
 * (must be one of the acting user's orgs; default: the only one, else the resource owner's org when
 * the user belongs to it) and `X-Service-Resource-Owner-Id`.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const tokens = createTtlCache<Identity>(options.ttlMs, options.maxEntries ?? 10_000);
  const users = createTtlCache<Identity>(options.ttlMs, options.maxEntries ?? 10_000);
  const principals = createPrincipalMemo();

  const verifyToken = (secret: string, traceContext: Context) =>
    tokens.getOrLoad(secret, async () => {
      const r = await options.authenticateToken(secret, traceContext).catch(rethrowAsUnauthenticated);
      return { userId: r.userId, tokenId: r.tokenId, isSystemAdmin: r.isSystemAdmin, memberships: r.memberships, ...(r.invocationId ? { invocationId: r.invocationId } : {}) };
    });
  const resolveUser = (userId: string, traceContext: Context) =>
    users.getOrLoad(userId, async () => {
      const r = await options.resolveUser(userId, traceContext).catch((error: unknown) => {
        if (!isRefusal(error)) throw error;
        throw unauthenticated(`unknown user '${userId}' in X-Service-User-Id`);
      });
      return { userId: r.userId, isSystemAdmin: r.isSystemAdmin, memberships: r.memberships };
    });

  return async (headers, traceContext) => {
    if (!headers.bearer) throw unauthenticated("missing 'Authorization: Bearer <API token>' header");
    const caller = await verifyToken(headers.bearer, traceContext);
    let acting = caller;
    if (headers.userId && headers.userId !== caller.userId) {
      if (!caller.isSystemAdmin) throw unauthenticated("only a system admin may act as another user (X-Service-User-Id)");
      acting = await resolveUser(headers.userId, traceContext);
    }
    const orgId = resolveOrg(acting, headers.orgId, headers.resourceOwnerId);
    return principals.get(acting, `${caller.tokenId ?? ""}|${orgId ?? ""}|${headers.resourceOwnerId ?? ""}`, () => ({
      kind: "user",
      subject: acting.userId,
      memberships: acting.memberships,
      isSystemAdmin: acting.isSystemAdmin,
      ...(caller.tokenId ? { tokenId: caller.tokenId } : {}),
      // Acting as another user is for system admins, whose tokens are never an invocation's.
      ...(caller.invocationId && acting === caller ? { invocationId: caller.invocationId } : {}),
      ...(orgId ? { orgId } : {}),
      ...(headers.resourceOwnerId ? { resourceOwnerId: headers.resourceOwnerId } : {}),
    }));
  };
}

/**
 * The same Principal object for the same cached identity and context headers, for as long as the
 * identity stays cached: downstream caches keyed on the object (the signed header) then hit.
 */
function createPrincipalMemo() {
  const byIdentity = new WeakMap<Identity, Map<string, Principal>>();
  return {
    get(identity: Identity, context: string, build: () => Principal): Principal {
      let contexts = byIdentity.get(identity);
      if (!contexts) byIdentity.set(identity, (contexts = new Map()));
      let principal = contexts.get(context);
      if (!principal) {
        // Context headers are caller-chosen; keep the memo small whatever they send.
        if (contexts.size >= 64) contexts.clear();
        contexts.set(context, (principal = build()));
      }
      return principal;
    },
  };
}

function resolveOrg(identity: Identity, requested: string | undefined, resourceOwner: string | undefined): string | undefined {
  if (requested) {
    const member = identity.memberships.some((m) => m.orgId === requested);
    if (!member && !identity.isSystemAdmin) throw unauthenticated(`not a member of org '${requested}'`);
    return requested;
  }
  if (identity.memberships.length === 1) return identity.memberships[0]!.orgId;
  // The client SDK addresses an existing resource by naming only the org that owns it (edits,
  // deletes, cancels, logs): a caller in several orgs then acts in that org, when a member of it.
  return resourceOwner && identity.memberships.some((m) => m.orgId === resourceOwner) ? resourceOwner : undefined;
}

/** Answers of the admin service that refuse the credentials; anything else (an outage) is no verdict on them. */
const REFUSALS = new Set([Code.Unauthenticated, Code.NotFound, Code.InvalidArgument, Code.PermissionDenied]);

/**
 * Whether the admin service refused the caller, as opposed to failing to answer: an outage of
 * admin or of its database (UNAVAILABLE, a deadline) must reach the client as itself (503, which
 * clients retry), never as a 401 that tells them their token is bad.
 */
function isRefusal(error: unknown): boolean {
  return error instanceof ConnectError && REFUSALS.has(error.code);
}

function rethrowAsUnauthenticated(error: unknown): never {
  if (!isRefusal(error)) throw error;
  const message = error instanceof Error ? error.message : "invalid API token";
  throw unauthenticated(message.replace(/^\[\w+\]\s*/, ""));
}

interface TtlCache<T> {
  getOrLoad(key: string, load: () => Promise<T>): Promise<T>;
}

/** A small map with expiry and a size bound; failed loads are not cached. */
function createTtlCache<T>(ttlMs: number, maxEntries: number): TtlCache<T> {
  const entries = new Map<string, { value: Promise<T>; expires: number }>();
  return {
    getOrLoad(key, load) {
      const now = Date.now();
      const hit = entries.get(key);
      if (hit && hit.expires > now) return hit.value;
      const value = load();
      entries.set(key, { value, expires: now + ttlMs });
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      return value;
    },
  };
}
