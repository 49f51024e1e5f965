import { newId, notFound } from "@hangar/shared";
import { checkName } from "./names";
import type { OrgRecord, UserRecord } from "./records";
import type { AdminUnitOfWork } from "./repositories";
import { MEMBER_ROLE } from "./roles";

/** A member of an org as the org's user listing shows it. */
export interface OrgMember {
  user: UserRecord;
  org: OrgRecord;
  roles: string[];
}

/** Creates an org (free tier, active) with its creator as its owner, in one transaction; validates `name`. */
export async function createOrg(uow: AdminUnitOfWork, creator: string, name: string): Promise<OrgRecord> {
  const org = { orgId: newId("og"), name: checkName(name, "name"), tier: "free", status: "active", created: new Date(), createdBy: creator };
  await uow.transaction(async (r) => {
    await r.orgs.add(org);
    await r.memberships.add({ orgId: org.orgId, userId: creator, roles: ["owner", MEMBER_ROLE], created: new Date() });
  });
  return org;
}

/** The org; 404 when it does not exist. */
export async function getOrg(uow: AdminUnitOfWork, orgId: string): Promise<OrgRecord> {
  const org = await uow.repositories().orgs.find(orgId);
  if (!org) throw notFound("org", orgId);
  return org;
}

/** The orgs a user belongs to, oldest first. */
export function orgsOfUser(uow: AdminUnitOfWork, userId: string): Promise<OrgRecord[]> {
  return uow.repositories().orgs.ofUser(userId);
}

/** The org's members with their roles, oldest membership first; 404 when the org does not exist. */
export async function listOrgMembers(uow: AdminUnitOfWork, orgId: string): Promise<OrgMember[]> {
  const r = uow.repositories();
  const [org, memberships] = [await r.orgs.find(orgId), await r.memberships.ofOrg(orgId)];
  if (!org) throw notFound("org", orgId);
  const users = new Map((await r.users.byIds(memberships.map((m) => m.userId))).map((u) => [u.userId, u]));
  return memberships.map((m) => ({ user: users.get(m.userId)!, org, roles: m.roles }));
}
