import { LockMode } from "@mikro-orm/core";
import { countUpTo, keysetPageRows, keysetPageSql, rawSql, sql, type EntityManager, type KeysetPageRows, type SearchPlan, type SqlFragment } from "@hangar/shared";
import type { ActionScope } from "../domain/action-search";
import type { ActionRecord, ActionVersionRecord } from "../domain/records";
import { Action, ActionVersion } from "./entities";

/** Reads and writes of actions and their digest history; the RPC layer never touches the ORM directly. */
export class ActionStore {
  constructor(readonly em: EntityManager) {}

  /** Loads an action; with `lock` (inside `transaction`) concurrent edits of it wait for this one. */
  find(orgId: string, name: string, lock = false): Promise<ActionRecord | null> {
    return this.em.findOne(Action, { orgId, name }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  findVersion(orgId: string, name: string, digest: string): Promise<ActionVersionRecord | null> {
    return this.em.findOne(ActionVersion, { orgId, name, digest });
  }

  /**
   * Inserts a new action and its first version in one transaction. Returns false, writing
   * nothing, when the org already has an action of that name (also under a concurrent create).
   */
  async insert(row: ActionRecord): Promise<boolean> {
    return this.em.transactional(async (em) => {
      const result = await em.createQueryBuilder(Action).insert(row).onConflict(["orgId", "name"]).ignore().execute("run");
      if (result.affectedRows === 0) return false;
      await new ActionStore(em).saveVersion(row);
      return true;
    });
  }

  /** Records the action's current definition under its digest, unless that digest is already recorded. */
  async saveVersion(row: ActionRecord): Promise<void> {
    await this.em.execute(
      `insert into action_versions (org_id, name, digest, definition, created) values (?, ?, ?, ?, now())
       on conflict (org_id, name, digest) do nothing`,
      [row.orgId, row.name, row.digest, JSON.stringify(row.definition)],
    );
  }

  /** Runs `work` in a transaction with a store bound to it; the ORM writes tracked changes at the end. */
  transaction<T>(work: (store: ActionStore) => Promise<T>): Promise<T> {
    return this.em.transactional((em) => work(new ActionStore(em)));
  }

  remove(row: ActionRecord): void {
    this.em.remove(row);
  }

  flush(): Promise<void> {
    return this.em.flush();
  }

  /** Runs a search over `scope`: one keyset page of actions and the number of matches (undefined above COUNT_CAP). */
  async search(scope: ActionScope, search: SearchPlan): Promise<KeysetPageRows<ActionRecord> & { total: number | undefined }> {
    const within = scope === "action_hub" ? sql`a.accessibility = 'action_hub'` : sql`a.org_id = ${scope.orgId}`;
    const where = sql`${within} and (${search.where})`;
    const from = rawSql("actions a");
    const execute = (query: SqlFragment) => this.em.execute(query.sql, [...query.params]);
    const [rows, total] = await Promise.all([execute(keysetPageSql(rawSql("a.*"), from, where, search)), countUpTo(execute, from, where, search.orderBy)]);
    return { ...keysetPageRows(rows, search.limit, (row) => this.em.map(Action, row)), total };
  }


  /** The distinct top-level metadata keys of the org's actions, sorted. */
  async metadataKeys(orgId: string): Promise<string[]> {
    const rows = await this.em.execute<{ key: string }[]>(
      "select distinct jsonb_object_keys(metadata) as key from actions where org_id = ? order by key",
      [orgId],
    );
    return rows.map((r) => r.key);
  }
}
