import { administers, notFound, rolesIn, unauthenticated, type Principal, quoteValue } from "@hangar/shared";

/** The calling user's id; other services calling have no user and are refused. */
export function requireUser(caller: Principal): string {
  if (caller.kind !== "user") throw unauthenticated("this operation needs a user's API token");
  return caller.subject;
}

/** Refuses anyone but another service (the gateway's internal calls). */
export function requireService(caller: Principal): void {
  if (caller.kind !== "service") throw unauthenticated("internal operation");
}

/** Checks that the caller may see the org; others get 404 so that org ids do not leak. */
export function requireMember(caller: Principal, orgId: string): void {
  if (!caller.isSystemAdmin && rolesIn(caller, orgId) === undefined) throw notFound("org", orgId);
}

/**
 * Checks that the caller may administer the org (owner or admin, or a system admin). A member
 * without the role gets the spec's access denial, 401 (as for org-admin-only configuration keys).
 */
export function requireOrgAdmin(caller: Principal, orgId: string): void {
  requireMember(caller, orgId);
  if (!administers(caller, orgId)) {
    throw unauthenticated(`administering org ${quoteValue(orgId)} needs the owner or admin role`);
  }
}
