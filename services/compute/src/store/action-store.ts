import { LockMode } from "@mikro-orm/core";
import { keysetPageRows, keysetPageWithTotal, rawSql, sql, type EntityManager, type SearchPlan, type SqlFragment } from "@hangar/shared";
import type { ActionScope } from "../domain/action-search";
import type { ActionRecord, ActionVersionRecord } from "../domain/records";
import type { ActionRepository, SearchPage } from "../domain/repositories";
import { Action, ActionVersion } from "./entities";

/** The actions repository over MikroORM. */
export class ActionStore implements ActionRepository {
  constructor(private readonly em: EntityManager) {}

  find(orgId: string, name: string, lock = false): Promise<ActionRecord | null> {
    return this.em.findOne(Action, { orgId, name }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  findVersion(orgId: string, name: string, digest: string): Promise<ActionVersionRecord | null> {
    return this.em.findOne(ActionVersion, { orgId, name, digest });
  }

  /** Inserts on conflict do nothing, so a concurrent create of the same name loses without an error. */
  async insert(row: ActionRecord): Promise<boolean> {
    const result = await this.em.createQueryBuilder(Action).insert(row).onConflict(["orgId", "name"]).ignore().execute("run");
    return result.affectedRows > 0;
  }

  async saveVersion(row: ActionRecord): Promise<void> {
    await this.em.execute(
      `insert into action_versions (org_id, name, digest, definition, created) values (?, ?, ?, ?, now())
       on conflict (org_id, name, digest) do nothing`,
      [row.orgId, row.name, row.digest, JSON.stringify(row.definition)],
    );
  }

  remove(row: ActionRecord): void {
    this.em.remove(row);
  }

  async search(scope: ActionScope, search: SearchPlan): Promise<SearchPage<ActionRecord>> {
    const within = scope === "action_hub" ? sql`a.accessibility = 'action_hub'` : sql`a.org_id = ${scope.orgId}`;
    const where = sql`${within} and (${search.where})`;
    const from = rawSql("actions a");
    const execute = (query: SqlFragment) => this.em.execute(query.sql, [...query.params]);
    const { rows, total } = await keysetPageWithTotal(execute, rawSql("a.*"), from, where, search);
    return { ...keysetPageRows(rows, search.limit, (row) => this.em.map(Action, row)), total };
  }

  async metadataKeys(orgId: string): Promise<string[]> {
    const rows = await this.em.execute<{ key: string }[]>(
      "select distinct jsonb_object_keys(metadata) as key from actions where org_id = ? order by key",
      [orgId],
    );
    return rows.map((r) => r.key);
  }
}
