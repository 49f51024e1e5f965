import type { EntityManager } from "@hangar/shared";
import type { OrgRecord } from "../domain/records";
import type { OrgRepository } from "../domain/repositories";
import { Membership, Org } from "./entities";

/** `OrgRepository` over MikroORM. */
export class OrgStore implements OrgRepository {
  constructor(private readonly em: EntityManager) {}

  find(orgId: string): Promise<OrgRecord | null> {
    return this.em.findOne(Org, { orgId });
  }

  async ofUser(userId: string): Promise<OrgRecord[]> {
    const memberships = await this.em.find(Membership, { userId });
    if (memberships.length === 0) return [];
    return this.em.find(Org, { orgId: { $in: memberships.map((m) => m.orgId) } }, { orderBy: { created: "asc", orgId: "asc" } });
  }

  async add(org: OrgRecord): Promise<void> {
    this.em.create(Org, org);
    await this.em.flush();
  }

  async lock(orgId: string): Promise<void> {
    await this.em.execute("select 1 from orgs where org_id = ? for update", [orgId]);
  }
}
