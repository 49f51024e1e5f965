import { conflict, forbidden, notFound, quoteValue, rolesIn, type Principal } from "@hangar/shared";
import type { MembershipRecord, UserRecord } from "./records";
import type { AdminRepositories, AdminUnitOfWork } from "./repositories";
import { editRoles, MEMBER_ROLE, parseRoles } from "./roles";

/** A role edit of one member: role names as the request gave them (`member` reads as `user`). */
export interface RoleChange {
  orgId: string;
  userId: string;
  addRoles: readonly string[];
  removeRoles: readonly string[];
}

/**
 * Removes a member from an org and records it. Idempotent: removing someone already removed
 * changes nothing and records nothing; someone who never was a member is 404. Removing another
 * member who is an owner needs the owner role, and the last owner stays (409).
 */
export async function removeOrgUser(uow: AdminUnitOfWork, caller: Principal, orgId: string, userId: string): Promise<void> {
  await changeMembership(uow, orgId, async (r) => {
    const membership = await r.memberships.find(orgId, userId);
    if (!membership) {
      if (await r.memberships.wasRemoved(orgId, userId)) return;
      throw notFound("org member", userId);
    }
    if (userId !== caller.subject) requireOwnerForOwnerRole(caller, orgId, membership.roles, []);
    await refuseRemovingLastOwner(r, orgId, membership.roles, []);
    await r.memberships.remove(orgId, userId);
    await r.memberships.audit({ orgId, userId, action: "removed", actor: caller.subject, rolesBefore: membership.roles, rolesAfter: [] });
  });
}

/**
 * Adds and removes roles of a member (validated first, naming `add_roles`/`remove_roles`); the
 * member role always stays. Granting or taking the owner role needs it, the last owner keeps it,
 * and an edit that changes nothing records nothing.
 */
export async function updateOrgUserRoles(uow: AdminUnitOfWork, caller: Principal, change: RoleChange): Promise<void> {
  const add = parseRoles(change.addRoles, "add_roles");
  const remove = parseRoles(change.removeRoles, "remove_roles");
  await changeMembership(uow, change.orgId, async (r) => {
    const membership = await r.memberships.find(change.orgId, change.userId);
    if (!membership) throw notFound("org member", change.userId);
    const before = membership.roles;
    const roles = editRoles(before, add, remove);
    requireOwnerForOwnerRole(caller, change.orgId, before, roles);
    await refuseRemovingLastOwner(r, change.orgId, before, roles);
    if (sameRoles(before, roles)) return;
    await r.memberships.setRoles(change.orgId, change.userId, roles);
    await r.memberships.audit({ orgId: change.orgId, userId: change.userId, action: "roles", actor: caller.subject, rolesBefore: before, rolesAfter: roles });
  });
}

/**
 * Adds an existing user removed from the org back to it, as a plain member. Only a user the org
 * once had: any other existing user id is taken (409), so an org cannot claim another org's users.
 */
export async function addBack(uow: AdminUnitOfWork, orgId: string, user: UserRecord, actor: string): Promise<UserRecord> {
  await changeMembership(uow, orgId, async (r) => {
    if ((await r.memberships.find(orgId, user.userId)) || !(await r.memberships.wasRemoved(orgId, user.userId))) {
      throw conflict(`user '${user.userId}' already exists`);
    }
    await addMember(r, orgId, user.userId, actor);
  });
  return user;
}

/** Adds the user to the org as a plain member and records who added it; run under `changeMembership`. */
export async function addMember(r: AdminRepositories, orgId: string, userId: string, actor: string): Promise<void> {
  await r.memberships.add(newMembership(orgId, userId));
  await r.memberships.audit({ orgId, userId, action: "added", actor, rolesBefore: [], rolesAfter: [MEMBER_ROLE] });
}

/** A plain member's membership starting now. */
export function newMembership(orgId: string, userId: string, created = new Date()): MembershipRecord {
  return { orgId, userId, roles: [MEMBER_ROLE], created };
}

/**
 * Runs a change of an org's memberships in a transaction that holds the org's lock, so that the
 * owner count it checks cannot change under it.
 */
export async function changeMembership(uow: AdminUnitOfWork, orgId: string, change: (r: AdminRepositories) => Promise<void>): Promise<void> {
  await uow.transaction(async (r) => {
    await r.orgs.lock(orgId);
    await change(r);
  });
}

/**
 * Only an owner (or a system admin) grants or takes away the owner role, or removes an owner: an
 * admin must not be able to make itself owner, or remove the owners above it. 403 otherwise.
 */
export function requireOwnerForOwnerRole(caller: Principal, orgId: string, before: readonly string[], after: readonly string[]): void {
  if (before.includes("owner") === after.includes("owner")) return;
  if (caller.isSystemAdmin || rolesIn(caller, orgId)?.includes("owner")) return;
  throw forbidden(`granting or removing the owner role in org '${orgId}' needs the owner role`);
}

/** An org must keep at least one owner, or nobody could administer it (409). */
async function refuseRemovingLastOwner(r: AdminRepositories, orgId: string, before: readonly string[], after: readonly string[]): Promise<void> {
  if (!before.includes("owner") || after.includes("owner")) return;
  const owners = (await r.memberships.ofOrg(orgId)).filter((m) => m.roles.includes("owner"));
  if (owners.length <= 1) throw conflict(`org ${quoteValue(orgId)} must keep at least one owner`);
}

function sameRoles(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((role) => b.includes(role));
}
