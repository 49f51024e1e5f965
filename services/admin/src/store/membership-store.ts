import { textArrayLiteral, type EntityManager } from "@hangar/shared";
import type { MembershipAuditEntry, MembershipRecord } from "../domain/records";
import type { MembershipRepository } from "../domain/repositories";
import { Membership } from "./entities";

/** `MembershipRepository` over MikroORM; the audit trail is written with plain SQL (it has no entity). */
export class MembershipStore implements MembershipRepository {
  constructor(private readonly em: EntityManager) {}

  find(orgId: string, userId: string): Promise<MembershipRecord | null> {
    return this.em.findOne(Membership, { orgId, userId });
  }

  ofUser(userId: string): Promise<MembershipRecord[]> {
    return this.em.find(Membership, { userId }, { orderBy: { created: "asc", orgId: "asc" } });
  }

  ofOrg(orgId: string): Promise<MembershipRecord[]> {
    return this.em.find(Membership, { orgId }, { orderBy: { created: "asc", userId: "asc" } });
  }

  async add(membership: MembershipRecord): Promise<void> {
    this.em.create(Membership, membership);
    await this.em.flush();
  }

  async addIfAbsent(membership: MembershipRecord): Promise<void> {
    await this.em.upsert(Membership, membership, { onConflictFields: ["orgId", "userId"], onConflictAction: "ignore" });
  }

  async setRoles(orgId: string, userId: string, roles: string[]): Promise<void> {
    const membership = await this.em.findOneOrFail(Membership, { orgId, userId });
    membership.roles = roles;
    await this.em.flush();
  }

  async remove(orgId: string, userId: string): Promise<void> {
    await this.em.nativeDelete(Membership, { orgId, userId });
  }

  async audit(entry: MembershipAuditEntry): Promise<void> {
    await this.em.execute(
      "insert into membership_audit (org_id, user_id, action, actor, roles_before, roles_after) values (?, ?, ?, ?, ?::text[], ?::text[])",
      [entry.orgId, entry.userId, entry.action, entry.actor, textArrayLiteral(entry.rolesBefore), textArrayLiteral(entry.rolesAfter)],
    );
  }

  async wasRemoved(orgId: string, userId: string): Promise<boolean> {
    const rows = await this.em.execute("select 1 from membership_audit where org_id = ? and user_id = ? and action = 'removed' limit 1", [orgId, userId]);
    return rows.length > 0;
  }
}
