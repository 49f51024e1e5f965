import { LockMode } from "@mikro-orm/core";
import { keysetPageRows, keysetPageWithTotal, rawSql, sql, textArrayLiteral, type EntityManager, type SearchPlan, type SqlFragment } from "@hangar/shared";
import type { ActivitySource } from "../domain/invocation-activity";
import type { GroupDimension, GroupSpec } from "../domain/invocation-grouping";
import { InvocationStatus } from "../domain/invocation-status";
import type { TimeWindow } from "../domain/invocation-stats";
import type { InvocationLogRecord, InvocationRecord } from "../domain/records";
import type { InvocationGroup, InvocationRepository, RunSummary, SearchPage } from "../domain/repositories";
import { Invocation, InvocationLog } from "./entities";

const TERMINAL = [InvocationStatus.Completed, InvocationStatus.Cancelled, InvocationStatus.Failed, InvocationStatus.Deadly];

const GROUP_COLUMNS: Record<GroupDimension, string[]> = {
  action: [`i.action_org_id`, `i.action_name`],
  source: [`i.source_type`, `i.source_id`],
  submitter: [`i.created_by`],
};

/** The invocations repository over MikroORM and prepared SQL. */
export class InvocationStore implements InvocationRepository {
  constructor(private readonly em: EntityManager) {}

  /** An invocation of the org, tracked so that the next flush writes changes to it. */
  find(orgId: string, invocationId: string): Promise<InvocationRecord | null> {
    return this.em.findOne(Invocation, { invocationId, orgId });
  }

  /** Like `find`, holding the row lock until the transaction ends, so racing status moves apply one after the other. */
  lock(orgId: string, invocationId: string): Promise<InvocationRecord | null> {
    return this.em.findOne(Invocation, { invocationId, orgId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  }

  findByIdempotencyId(orgId: string, idempotencyId: string): Promise<InvocationRecord | null> {
    return this.em.findOne(Invocation, { orgId, idempotencyId });
  }

  /** One insert on conflict do nothing (the idempotency id's unique index), then the row read back as stored. */
  async insert(record: InvocationRecord): Promise<InvocationRecord | null> {
    const inserted = await this.em.getConnection().execute<{ invocation_id: string }[]>(
      `insert into invocations (${INSERT_COLUMNS.join(", ")}) values (${INSERT_COLUMNS.map((c) => (c === "input_data" ? "?::text[]" : "?")).join(", ")})
       on conflict (org_id, idempotency_id) where idempotency_id is not null do nothing
       returning invocation_id`,
      insertValues(record),
    );
    if (inserted.length === 0) return null;
    return this.em.findOneOrFail(Invocation, { invocationId: record.invocationId }, { refresh: true });
  }

  /** Deletes an invocation; its log lines go with it (foreign key cascade). */
  async remove(invocationId: string): Promise<void> {
    await this.em.nativeDelete(Invocation, { invocationId });
  }

  async invokedIdempotencyIds(orgId: string, idempotencyIds: string[]): Promise<Set<string>> {
    if (idempotencyIds.length === 0) return new Set();
    const rows = await this.em.find(Invocation, { orgId, idempotencyId: { $in: idempotencyIds } }, { fields: ["idempotencyId"] });
    return new Set(rows.map((row) => row.idempotencyId!));
  }

  /** Up to `limit` log lines after line `afterSeq`, in order. */
  logsAfter(invocationId: string, afterSeq: number, limit: number): Promise<InvocationLogRecord[]> {
    return this.em.find(InvocationLog, { invocationId, seq: { $gt: String(afterSeq) } }, { orderBy: { seq: "asc" }, limit });
  }

  logCount(invocationId: string): Promise<number> {
    return this.em.count(InvocationLog, { invocationId });
  }

  /**
   * Locks up to `limit` unfinished invocations of the org created before `before`, oldest first.
   * Rows another transaction holds are skipped (left for the next batch), so a bulk cancel never
   * waits on a runner's status report.
   */
  lockActiveBefore(orgId: string, before: Date, limit: number): Promise<InvocationRecord[]> {
    return this.em.find(
      Invocation,
      { orgId, lastStatus: { $nin: TERMINAL }, created: { $lt: before } },
      { orderBy: { created: "asc", invocationId: "asc" }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
    );
  }

  async hasActiveBefore(orgId: string, before: Date): Promise<boolean> {
    const found = await this.em.findOne(Invocation, { orgId, lastStatus: { $nin: TERMINAL }, created: { $lt: before } }, { fields: ["invocationId"] });
    return found !== null;
  }

  /** Per action, the org's invocations created in the window by outcome, ordered by action name. */
  async runSummaries(orgId: string, window: TimeWindow, limit?: number): Promise<RunSummary[]> {
    const query = sql`
      select action_org_id, action_name,
        count(*) filter (where last_status = ${InvocationStatus.Completed}) as completed,
        count(*) filter (where last_status in (${[InvocationStatus.Failed, InvocationStatus.Deadly]})) as failed,
        count(*) filter (where last_status = ${InvocationStatus.Queued}) as queued
      from invocations
      where org_id = ${orgId} and created >= ${window.start} and created < ${window.end}
      group by action_org_id, action_name
      order by action_name, action_org_id
      ${limit === undefined ? rawSql("") : sql`limit ${limit}`}`;
    const rows = await this.execute<{ action_org_id: string; action_name: string; completed: string; failed: string; queued: string }>(query);
    return rows.map((r) => ({ actionOrgId: r.action_org_id, actionName: r.action_name, completed: Number(r.completed), failed: Number(r.failed), queued: Number(r.queued) }));
  }

  /** Runs a search in the org: one keyset page of rows and total_count as keysetPageWithTotal learns it (undefined above COUNT_CAP, or where PostgreSQL expects far more). */
  async search(orgId: string, search: SearchPlan): Promise<SearchPage<InvocationRecord>> {
    const where = sql`i.org_id = ${orgId} and (${search.where})`;
    const from = rawSql("invocations i");
    const execute = (query: SqlFragment) => this.em.execute(query.sql, [...query.params]);
    const { rows, total } = await keysetPageWithTotal(execute, rawSql("i.*"), from, where, search);
    return { ...keysetPageRows(rows, search.limit, (row) => this.em.map(Invocation, row)), total };
  }

  /** How many of the org's invocations are in each status (statuses without any are absent). */
  async countByStatus(orgId: string): Promise<Map<number, number>> {
    const rows = await this.execute<{ last_status: number; count: string }>(
      sql`select last_status, count(*) as count from invocations where org_id = ${orgId} group by last_status`,
    );
    return new Map(rows.map((r) => [Number(r.last_status), Number(r.count)]));
  }

  /** How many invocations of every org wait for a runner (Queued). */
  async countQueued(): Promise<number> {
    const [row] = await this.execute<{ count: string }>(sql`select count(*) as count from invocations where last_status = ${InvocationStatus.Queued}`);
    return Number(row?.count ?? 0);
  }

  /**
   * The median run time in seconds of the org's invocations that completed since `since`: from the
   * runner's first claim (or from creation when none claimed it) to completion. Null when none did.
   */
  async medianCompletedSeconds(orgId: string, since: Date): Promise<number | null> {
    const rows = await this.execute<{ median: number | string | null }>(sql`
      select percentile_cont(0.5) within group (order by extract(epoch from finished - coalesce(started, created))) as median
      from invocations
      where org_id = ${orgId} and last_status = ${InvocationStatus.Completed} and finished >= ${since}`);
    const median = rows[0]?.median;
    return median === null || median === undefined ? null : Number(median);
  }

  /** The status histories and vCPUs of the org's invocations alive at some point in the window and matching `where`. */
  async activitySources(orgId: string, window: TimeWindow, where: SqlFragment): Promise<ActivitySource[]> {
    const rows = await this.execute<{ status_history: ActivitySource["statusHistory"]; vcpu: string | null }>(sql`
      select i.status_history, i.compute_requirements->>'vCPU' as vcpu
      from invocations i
      where i.org_id = ${orgId} and i.created < ${window.end} and (i.finished is null or i.finished >= ${window.start}) and (${where})`);
    return rows.map((r) => ({ statusHistory: r.status_history, vCPU: Number(r.vcpu ?? 0) }));
  }

  /**
   * Counts the org's invocations in `spec.statuses` matching `where`, grouped by the spec's
   * dimensions, largest groups first; `total` is the number of groups. A trigger source is named
   * by the trigger's current name (null once the trigger is deleted).
   */
  async groups(orgId: string, spec: GroupSpec, where: SqlFragment): Promise<{ groups: InvocationGroup[]; total: number }> {
    const columns = rawSql(spec.dimensions.flatMap((d) => GROUP_COLUMNS[d]).join(", "));
    const bySource = spec.dimensions.includes("source");
    const rows = await this.execute<Record<string, string | null>>(sql`
      select ${columns}, ${rawSql(bySource ? "max(t.name)" : "null")} as trigger_name, count(*) as count, count(*) over () as total
      from invocations i
      ${rawSql(bySource ? "left join triggers t on i.source_type = 'Trigger' and t.trigger_id = i.source_id and t.org_id = i.org_id" : "")}
      where i.org_id = ${orgId} and i.last_status in (${spec.statuses}) and (${where})
      group by ${columns}
      order by count desc, ${columns}
      limit ${spec.limit}`);
    return { groups: rows.map(groupOf), total: Number(rows[0]?.total ?? 0) };
  }

  private execute<T = Record<string, unknown>>(query: SqlFragment): Promise<T[]> {
    return this.em.execute<T[]>(query.sql, [...query.params]);
  }
}

function groupOf(row: Record<string, string | null>): InvocationGroup {
  return {
    actionOrgId: row.action_org_id ?? null,
    actionName: row.action_name ?? null,
    sourceType: row.source_type ?? null,
    sourceId: row.source_id ?? null,
    triggerName: row.trigger_name ?? null,
    submitter: row.created_by ?? null,
    count: Number(row.count),
  };
}

const INSERT_COLUMNS = [
  "invocation_id", "org_id", "action_org_id", "action_name", "action_digest", "data_source_type", "data_source_id",
  "input_data", "rich_input_data", "upload_destination", "idempotency_id", "compute_requirements", "container_parameters",
  "parameter_values", "source_type", "source_id", "created_by", "container_image_uri", "container_image_digest", "timeout",
  "last_status", "status_history", "created", "attempts",
];

function insertValues(row: InvocationRecord): unknown[] {
  const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
  return [
    row.invocationId, row.orgId, row.actionOrgId, row.actionName, row.actionDigest, row.dataSourceType, row.dataSourceId,
    textArrayLiteral(row.inputData), json(row.richInputData), json(row.uploadDestination), row.idempotencyId, json(row.computeRequirements),
    json(row.containerParameters), json(row.parameterValues), row.sourceType, row.sourceId, row.createdBy,
    row.containerImageUri, row.containerImageDigest, row.timeout, row.lastStatus, json(row.statusHistory), row.created, row.attempts,
  ];
}
