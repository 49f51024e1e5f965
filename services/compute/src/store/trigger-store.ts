import { LockMode, UniqueConstraintViolationException } from "@mikro-orm/core";
import { keysetPageRows, keysetPageWithTotal, rawSql, readRows, sql, type EntityManager, type KeysetPage, type SearchPlan, type SqlFragment } from "@hangar/shared";
import { FILE_UPLOAD_CAUSE, occasionKey, type EvaluationOccasion, type EvaluationOutcome } from "../domain/trigger-evaluation";
import type { TriggerEvaluationRecord, TriggerRecord } from "../domain/records";
import type { EvaluationScope, SearchPage, TriggerRepository } from "../domain/repositories";
import { Trigger, TriggerEvaluation } from "./trigger-entities";
import { triggerFromRow } from "./trigger-rows";

/** The triggers repository over MikroORM and prepared SQL. */
export class TriggerStore implements TriggerRepository {
  constructor(private readonly em: EntityManager) {}

  /** A trigger of the org by name; with `lock`, locked for update (in a transaction). */
  find(orgId: string, name: string, lock = false): Promise<TriggerRecord | null> {
    return this.em.findOne(Trigger, { orgId, name }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  /** Inserts a trigger; false, writing nothing, when the org already has one of that name. */
  async insert(row: TriggerRecord): Promise<boolean> {
    try {
      await this.em.insert(Trigger, row);
      return true;
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) return false;
      throw error;
    }
  }

  remove(row: TriggerRecord): void {
    this.em.remove(row);
  }

  /** A transaction-scoped advisory lock on the org's cap, then the count (the (org_id, name) index narrows it to the org). */
  async lockActiveCount(orgId: string): Promise<number> {
    await this.em.execute("select pg_advisory_xact_lock(hashtextextended(?, 0))", [`trigger-cap:${orgId}`]);
    const [row] = await this.em.execute<{ active: number }[]>("select count(*)::int as active from triggers where org_id = ? and enabled and managed_by is null", [orgId]);
    return row!.active;
  }

  /**
   * Runs a search in the org: one keyset page of rows and total_count as keysetPageWithTotal learns
   * it (undefined above COUNT_CAP, or where PostgreSQL expects far more). Legacy searches see only v1 triggers: a v2 one has no legacy form.
   */
  async search(orgId: string, search: SearchPlan, includeV2 = false): Promise<SearchPage<TriggerRecord>> {
    const engines = rawSql(includeV2 ? "true" : "t.engine = 'v1'");
    const where = sql`t.org_id = ${orgId} and ${engines} and (${search.where})`;
    const from = rawSql("triggers t");
    const execute = (query: SqlFragment) => this.em.execute(query.sql, [...query.params]);
    const { rows, total } = await keysetPageWithTotal(execute, rawSql("t.*"), from, where, search);
    return { ...keysetPageRows(rows, search.limit, (row) => this.em.map(Trigger, row)), total };
  }

  /** The org's triggers that react to `cause`, enabled or not, oldest first. */
  async reactingTo(orgId: string, cause: string): Promise<TriggerRecord[]> {
    const rows = await readRows(this.em, "select * from triggers where org_id = ? and engine = 'v1' and ? = any(causes) order by created, trigger_id", [orgId, cause]);
    return rows.map(triggerFromRow);
  }

  /** A page of evaluations, newest first, whether more follow, and how many the scope holds. */
  async evaluations(scope: EvaluationScope, page: Pick<KeysetPage, "limit" | "before">): Promise<{ rows: TriggerEvaluationRecord[]; hasMore: boolean; total: number }> {
    const where = "triggerId" in scope ? sql`trigger_id = ${scope.triggerId}` : sql`org_id = ${scope.orgId} and data_source_id = ${scope.datasetId}`;
    const after: SqlFragment = page.before === undefined ? rawSql("true") : sql`trigger_evaluation_id < ${page.before}::bigint`;
    const list = sql`select * from trigger_evaluations where ${where} and ${after} order by trigger_evaluation_id desc limit ${page.limit + 1}`;
    const count = sql`select count(*) as total from trigger_evaluations where ${where}`;
    const [rows, counts] = await Promise.all([
      this.em.execute(list.sql, [...list.params]),
      this.em.execute<{ total: string }[]>(count.sql, [...count.params]),
    ]);
    const mapped = rows.slice(0, page.limit).map((row) => this.em.map(TriggerEvaluation, row));
    return { rows: mapped, hasMore: rows.length > page.limit, total: Number(counts[0]!.total) };
  }

  /**
   * Records a pending evaluation of a trigger for an occasion (an upload, a dataset change) and
   * returns its id. An occasion is evaluated once per trigger: a pending or failed earlier attempt
   * (a redelivered event) is reset to pending and reused; an evaluated one returns undefined, so
   * nothing runs twice. So does a trigger deleted since it was listed.
   */
  async beginEvaluation(triggerId: string, occasion: EvaluationOccasion): Promise<string | undefined> {
    const transactionId = occasion.cause === FILE_UPLOAD_CAUSE ? occasion.transactionId : null;
    const rows = await this.em.execute<{ trigger_evaluation_id: string }[]>(
      `insert into trigger_evaluations (trigger_id, org_id, data_source_type, data_source_id, transaction_id, occasion_id, evaluation_start, status, cause)
       select trigger_id, org_id, 'Dataset', ?, ?, ?, now(), 'pending', ? from triggers where trigger_id = ?
       on conflict (trigger_id, occasion_id) where occasion_id is not null do update
         set status = 'pending', evaluation_start = now(), evaluation_end = null, status_detail = null, outcome = null, outcome_reason = null
         where trigger_evaluations.status <> 'evaluated'
       returning trigger_evaluation_id`,
      [occasion.datasetId, transactionId, occasionKey(occasion), occasion.cause, triggerId],
    );
    return rows[0] ? String(rows[0].trigger_evaluation_id) : undefined;
  }

  async finishEvaluation(triggerEvaluationId: string, result: EvaluationOutcome): Promise<void> {
    await this.em.execute(
      "update trigger_evaluations set status = 'evaluated', evaluation_end = now(), outcome = ?, outcome_reason = ? where trigger_evaluation_id = ?",
      [result.outcome, result.reason, triggerEvaluationId],
    );
  }

  async failEvaluation(triggerEvaluationId: string, detail: string): Promise<void> {
    await this.em.execute(
      "update trigger_evaluations set status = 'failed', evaluation_end = now(), status_detail = ? where trigger_evaluation_id = ?",
      [detail, triggerEvaluationId],
    );
  }
}
