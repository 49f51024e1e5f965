import type { Principal } from "@hangar/shared";

/** A user principal holding `roles` (org id to role names), as the gateway would sign it. */
export function userCaller(subject: string, roles: Record<string, string[]> = {}, extra: Partial<Principal> = {}): Principal {
  return { kind: "user", subject, memberships: Object.entries(roles).map(([orgId, r]) => ({ orgId, roles: r })), isSystemAdmin: false, ...extra };
}

/** Another service's principal, acting in `orgId` when given. */
export function serviceCaller(subject: string, orgId?: string): Principal {
  return { kind: "service", subject, memberships: [], isSystemAdmin: false, ...(orgId !== undefined ? { orgId } : {}) };
}
