import { LockMode } from "@mikro-orm/core";
import { readRows, type EntityManager, type KeysetPage } from "@hangar/shared";
import type { TriggerDispatchRecord, TriggerRecord } from "../domain/records";
import type { DispatchOutcome, NewDispatch, StaleDispatch, TriggerModelRepository } from "../domain/repositories";
import { Trigger, TriggerDispatch } from "./trigger-entities";
import { triggerFromRow } from "./trigger-rows";

const DISPATCH_COLUMNS = [
  "trigger_id",
  "org_id",
  "idempotency_token",
  "target_id",
  "target_type",
  "event_type",
  "event_id",
  "subject",
  "dataset_id",
  "status",
  "claimed_at",
  "namespace",
] as const;

/** The 0.62 trigger model's repository over the `triggers` and `trigger_dispatches` tables. */
export class TriggerModelStore implements TriggerModelRepository {
  constructor(private readonly em: EntityManager) {}

  findById(orgId: string, triggerId: string, lock = false): Promise<TriggerRecord | null> {
    return this.em.findOne(Trigger, { orgId, triggerId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  async subscribedTo(orgId: string, eventType: string): Promise<TriggerRecord[]> {
    const rows = await readRows(
      this.em,
      `select * from triggers where org_id = ? and engine = 'v2' and enabled and fires_on->>'type' = 'events' and jsonb_exists(fires_on->'events', ?) order by created, trigger_id`,
      [orgId, eventType],
    );
    return rows.map(triggerFromRow);
  }

  /** One multi-row insert (a JSON record set: knex would expand array parameters), so the scheduler claims thousands of ticks in one statement. */
  async claim(rows: NewDispatch[]): Promise<TriggerDispatchRecord[]> {
    if (rows.length === 0) return [];
    const records = rows.map((row) => Object.fromEntries(DISPATCH_COLUMNS.map((column) => [column, columnValue(row, column)])));
    const types = DISPATCH_COLUMNS.map((column) => `${column} ${COLUMN_TYPES[column] ?? "text"}`).join(", ");
    const inserted = await this.em.execute(
      `insert into trigger_dispatches (${DISPATCH_COLUMNS.join(", ")})
       select ${DISPATCH_COLUMNS.join(", ")} from jsonb_to_recordset(?::jsonb) as r(${types})
       on conflict (trigger_id, idempotency_token, target_id) do nothing
       returning *`,
      [JSON.stringify(records)],
    );
    return inserted.map((row) => this.em.map(TriggerDispatch, row));
  }

  async finish(outcomes: DispatchOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await this.em.execute(
      `update trigger_dispatches d set status = o.status, status_detail = o.detail, result_ref = o.result_ref, finalized_at = now()
       from jsonb_to_recordset(?::jsonb) as o(dispatch_id bigint, status text, detail text, result_ref text) where d.dispatch_id = o.dispatch_id`,
      [JSON.stringify(outcomes.map((o) => ({ dispatch_id: String(o.dispatchId), status: o.status, detail: o.detail, result_ref: o.resultRef })))],
    );
  }

  async slots(triggerId: string, token: string): Promise<TriggerDispatchRecord[]> {
    const rows = await this.em.execute("select * from trigger_dispatches where trigger_id = ? and idempotency_token = ?", [triggerId, token]);
    return rows.map((row) => this.em.map(TriggerDispatch, row));
  }

  async dispatches(triggerId: string, page: Pick<KeysetPage, "limit" | "before">): Promise<{ rows: TriggerDispatchRecord[]; hasMore: boolean; total: number }> {
    const before = page.before === undefined ? "" : "and dispatch_id < ?::bigint";
    const params = page.before === undefined ? [triggerId, page.limit + 1] : [triggerId, page.before, page.limit + 1];
    const [rows, counts] = await Promise.all([
      this.em.execute(`select * from trigger_dispatches where trigger_id = ? ${before} order by dispatch_id desc limit ?`, params),
      this.em.execute<{ total: string }[]>("select count(*) as total from trigger_dispatches where trigger_id = ?", [triggerId]),
    ]);
    const mapped = rows.slice(0, page.limit).map((row) => this.em.map(TriggerDispatch, row));
    return { rows: mapped, hasMore: rows.length > page.limit, total: Number(counts[0]!.total) };
  }

  async lockDue(now: Date, limit: number): Promise<TriggerRecord[]> {
    const rows = await this.em.execute(
      "select * from triggers where next_fire_at <= ? and engine = 'v2' and enabled order by next_fire_at limit ? for update skip locked",
      [now, limit],
    );
    return rows.map((row) => this.em.map(Trigger, row));
  }

  async reclaimStale(staleBefore: Date, now: Date, limit: number): Promise<StaleDispatch[]> {
    const rows = await this.em.execute(
      `update trigger_dispatches set claimed_at = ? where dispatch_id in (
         select dispatch_id from trigger_dispatches where status = 'claimed' and claimed_at < ? order by claimed_at limit ? for update skip locked)
       returning *`,
      [now, staleBefore, limit],
    );
    return rows.map((row) => ({ dispatch: this.em.map(TriggerDispatch, row), namespace: (row.namespace as StaleDispatch["namespace"]) ?? null }));
  }

  async byIds(triggerIds: readonly string[]): Promise<TriggerRecord[]> {
    return triggerIds.length === 0 ? [] : this.em.find(Trigger, { triggerId: { $in: [...triggerIds] } });
  }

  async setNextFire(updates: { triggerId: string; nextFireAt: Date | null }[]): Promise<void> {
    if (updates.length === 0) return;
    await this.em.execute(
      "update triggers t set next_fire_at = u.at from jsonb_to_recordset(?::jsonb) as u(id text, at timestamptz) where t.trigger_id = u.id",
      [JSON.stringify(updates.map((u) => ({ id: u.triggerId, at: u.nextFireAt })))],
    );
  }
}

const COLUMN_TYPES: Partial<Record<(typeof DISPATCH_COLUMNS)[number], string>> = { claimed_at: "timestamptz", namespace: "jsonb" };

function columnValue(row: NewDispatch, column: (typeof DISPATCH_COLUMNS)[number]): unknown {
  const key = column.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()) as keyof NewDispatch;
  return row[key] ?? null;
}
