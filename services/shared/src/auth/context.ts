import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { badRequest, forbidden, notFound, unauthenticated } from "../errors";
import type { Principal } from "./principal";

/** Context key under which the verifying interceptor stores the caller. */
export const principalKey = createContextKey<Principal | undefined>(undefined, {
  description: "the verified caller",
});

/** The verified caller of the current RPC. */
export function callerOf(ctx: HandlerContext): Principal {
  const principal = ctx.values.get(principalKey);
  if (!principal) throw unauthenticated("missing caller identity");
  return principal;
}

/**
 * The org the call acts in. Callers in several orgs must name one with `X-Service-Org-Id`;
 * the gateway has already checked membership of a named org. A caller in no org gets 403.
 */
export function requireOrg(principal: Principal): string {
  // A user removed from its last org keeps a valid token that may act nowhere: refused, not a bad request.
  if (!principal.orgId && principal.memberships.length === 0 && !principal.isSystemAdmin) throw forbidden("the caller belongs to no org");
  if (!principal.orgId) {
    throw badRequest("the caller belongs to several orgs or none: name one with the X-Service-Org-Id header");
  }
  return principal.orgId;
}

/**
 * The org whose resources a read addresses: the resource owner named by the caller when the caller
 * is a member of it, else the acting org. A named owner the caller does not belong to yields
 * undefined, so lookups find nothing (404, empty lists) rather than leaking existence.
 */
export function readableOrg(principal: Principal): string | undefined {
  const owner = principal.resourceOwnerId;
  if (owner && owner !== principal.orgId) {
    return principal.memberships.some((m) => m.orgId === owner) ? owner : undefined;
  }
  return requireOrg(principal);
}

/**
 * The org of a record a call addresses by its id, for reading or changing it. A caller who named
 * an org (or the resource owner), or who has one, gets `readableOrg`'s answer. A caller in several
 * orgs who named none (the client SDK sends no org header on some by-id calls, e.g. an upload's
 * credentials) gets the record's own org, looked up by `orgOfRecord`, when it belongs to that org;
 * else undefined, so the lookup is a 404 and another org's record stays invisible.
 */
export async function recordOrg(principal: Principal, orgOfRecord: () => Promise<string | undefined>): Promise<string | undefined> {
  if (principal.orgId || principal.resourceOwnerId || principal.memberships.length < 2) return readableOrg(principal);
  const orgId = await orgOfRecord();
  return orgId !== undefined && principal.memberships.some((m) => m.orgId === orgId) ? orgId : undefined;
}

/**
 * The org a path or body names, when the caller may act in it: its acting org or an org it belongs
 * to. Any other org is a 404, as the org routes answer, so another org's existence does not leak.
 */
export function memberOrg(principal: Principal, orgId: string): string {
  if (orgId !== "" && (orgId === principal.orgId || principal.memberships.some((m) => m.orgId === orgId))) return orgId;
  throw notFound("org", orgId);
}
