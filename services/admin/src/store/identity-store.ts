import type { EntityManager } from "@hangar/shared";
import { ApiToken, Membership, Org, Usage, User, type ApiTokenRow, type MembershipRow, type OrgRow, type UserRow } from "./entities";

/** What a membership change was: `added` (back), `removed`, or `roles` (an edit of its roles). */
export interface MembershipAuditEntry {
  orgId: string;
  userId: string;
  action: "added" | "removed" | "roles";
  /** The user who made the change. */
  actor: string;
  rolesBefore: readonly string[];
  rolesAfter: readonly string[];
}

// A PostgreSQL array literal; role names are from a fixed list, with no quotes or commas.
function toArray(values: readonly string[]): string {
  return `{${values.join(",")}}`;
}

/** All reads and writes of the admin schema; the RPC layer never touches the ORM directly. */
export class IdentityStore {
  constructor(private readonly em: EntityManager) {}

  findOrg(orgId: string): Promise<OrgRow | null> {
    return this.em.findOne(Org, { orgId });
  }

  findUser(userId: string): Promise<UserRow | null> {
    return this.em.findOne(User, { userId });
  }

  countUsers(): Promise<number> {
    return this.em.count(User, {});
  }

  findMembership(orgId: string, userId: string): Promise<MembershipRow | null> {
    return this.em.findOne(Membership, { orgId, userId });
  }

  membershipsOfUser(userId: string): Promise<MembershipRow[]> {
    return this.em.find(Membership, { userId }, { orderBy: { created: "asc", orgId: "asc" } });
  }

  membershipsOfOrg(orgId: string): Promise<MembershipRow[]> {
    return this.em.find(Membership, { orgId }, { orderBy: { created: "asc", userId: "asc" } });
  }

  async orgsOfUser(userId: string): Promise<OrgRow[]> {
    const memberships = await this.membershipsOfUser(userId);
    if (memberships.length === 0) return [];
    return this.em.find(Org, { orgId: { $in: memberships.map((m) => m.orgId) } }, { orderBy: { created: "asc", orgId: "asc" } });
  }

  usersByIds(userIds: string[]): Promise<UserRow[]> {
    return this.em.find(User, { userId: { $in: userIds } });
  }

  findTokenByHash(secretHash: string): Promise<ApiTokenRow | null> {
    return this.em.findOne(ApiToken, { secretHash });
  }

  findToken(tokenId: string): Promise<ApiTokenRow | null> {
    return this.em.findOne(ApiToken, { tokenId });
  }

  tokensOfUser(userId: string): Promise<ApiTokenRow[]> {
    return this.em.find(ApiToken, { userId }, { orderBy: { created: "asc", tokenId: "asc" } });
  }

  usageOf(orgId: string) {
    return this.em.find(Usage, { orgId }, { orderBy: { resourceName: "asc" } });
  }

  /** Stamps a token as used, at most once a minute, so authentication does not write on every call. */
  async touchToken(tokenId: string): Promise<void> {
    await this.em.execute(
      "update api_tokens set last_used = now() where token_id = ? and (last_used is null or last_used < now() - interval '1 minute')",
      [tokenId],
    );
  }

  /** Adds `delta` to a usage counter, creating it at zero first. */
  async addUsage(orgId: string, resourceName: string, delta: number): Promise<void> {
    await this.em.execute(
      `insert into usage (org_id, resource_name, quantity) values (?, ?, ?)
       on conflict (org_id, resource_name) do update set quantity = usage.quantity + excluded.quantity`,
      [orgId, resourceName, delta],
    );
  }

  /** Creates a user unless one with its id exists, so that concurrent first creations both succeed. */
  async addUserIfAbsent(row: UserRow): Promise<void> {
    await this.em.upsert(User, row, { onConflictFields: ["userId"], onConflictAction: "ignore" });
  }

  /** Adds a membership unless the user already belongs to the org. */
  async addMembershipIfAbsent(row: MembershipRow): Promise<void> {
    await this.em.upsert(Membership, row, { onConflictFields: ["orgId", "userId"], onConflictAction: "ignore" });
  }

  /** Deletes a user; its memberships and tokens go with it (foreign keys cascade). */
  async deleteUser(userId: string): Promise<void> {
    await this.em.nativeDelete(User, { userId });
  }

  /**
   * Locks the org's row until the transaction ends, so that membership changes of one org happen
   * one at a time: two owners removing each other at once must not leave the org without an owner.
   */
  async lockOrg(orgId: string): Promise<void> {
    await this.em.execute("select 1 from orgs where org_id = ? for update", [orgId]);
  }

  /** Records a membership change in the audit trail. */
  async audit(entry: MembershipAuditEntry): Promise<void> {
    await this.em.execute(
      "insert into membership_audit (org_id, user_id, action, actor, roles_before, roles_after) values (?, ?, ?, ?, ?::text[], ?::text[])",
      [entry.orgId, entry.userId, entry.action, entry.actor, toArray(entry.rolesBefore), toArray(entry.rolesAfter)],
    );
  }

  /** Whether the audit trail records the user's removal from the org (it was a member once). */
  async wasRemoved(orgId: string, userId: string): Promise<boolean> {
    const rows = await this.em.execute("select 1 from membership_audit where org_id = ? and user_id = ? and action = 'removed' limit 1", [orgId, userId]);
    return rows.length > 0;
  }

  addOrg(row: OrgRow): void {
    this.em.create(Org, row);
  }

  addUser(row: UserRow): void {
    this.em.create(User, row);
  }

  addMembership(row: MembershipRow): void {
    this.em.create(Membership, row);
  }

  addToken(row: ApiTokenRow): void {
    this.em.create(ApiToken, row);
  }

  remove(row: object): void {
    this.em.remove(row);
  }

  flush(): Promise<void> {
    return this.em.flush();
  }
}
