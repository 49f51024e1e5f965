import type { EntityManager } from "@hangar/shared";
import type { UsageRecord } from "../domain/records";
import type { UsageRepository } from "../domain/repositories";
import { Usage } from "./entities";

/** `UsageRepository` over MikroORM. */
export class UsageStore implements UsageRepository {
  constructor(private readonly em: EntityManager) {}

  ofOrg(orgId: string): Promise<UsageRecord[]> {
    return this.em.find(Usage, { orgId }, { orderBy: { resourceName: "asc" } });
  }

  // One upsert, so that concurrent consumers of one org's events never lose a count.
  async add(orgId: string, resourceName: string, delta: number): Promise<void> {
    await this.em.execute(
      `insert into usage (org_id, resource_name, quantity) values (?, ?, ?)
       on conflict (org_id, resource_name) do update set quantity = usage.quantity + excluded.quantity`,
      [orgId, resourceName, delta],
    );
  }
}
