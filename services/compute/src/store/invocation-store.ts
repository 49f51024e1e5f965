import { keysetPageRows, keysetPageWithTotal, rawSql, readRows, sql, textArrayLiteral, timestampFromRow, type EntityManager, type SearchPlan, type SqlFragment } from "@hangar/shared";
import type { ActivitySource } from "../domain/invocation-activity";
import type { GroupDimension, GroupSpec } from "../domain/invocation-grouping";
import { InvocationStatus } from "../domain/invocation-status";
import type { TimeWindow } from "../domain/invocation-stats";
import type { InvocationLogRecord, InvocationRecord } from "../domain/records";
import type { InvocationGroup, InvocationRepository, RunSummary, SearchPage } from "../domain/repositories";
import { insertInvocation, invocationFromRow, updateInvocations } from "./invocation-rows";

// The ended statuses as one array literal: the ORM would expand a JS array parameter into a list of values.
const TERMINAL_LITERAL = `{${[InvocationStatus.Completed, InvocationStatus.Cancelled, InvocationStatus.Failed, InvocationStatus.Deadly].join(",")}}`;

const GROUP_COLUMNS: Record<GroupDimension, string[]> = {
  action: [`i.action_org_id`, `i.action_name`],
  source: [`i.source_type`, `i.source_id`],
  submitter: [`i.created_by`],
};

/**
 * The invocations repository in SQL: rows come back as plain records (see invocation-rows), and
 * changes are written by `update`, not tracked. Reads outside a transaction are prepared statements.
 */
export class InvocationStore implements InvocationRepository {
  constructor(private readonly em: EntityManager) {}

  async find(orgId: string, invocationId: string): Promise<InvocationRecord | null> {
    return this.one("select * from invocations where invocation_id = ? and org_id = ?", [invocationId, orgId]);
  }

  /** Like `find`, holding the row lock until the transaction ends, so racing status moves apply one after the other. */
  lock(orgId: string, invocationId: string): Promise<InvocationRecord | null> {
    return this.one("select * from invocations where invocation_id = ? and org_id = ? for update", [invocationId, orgId]);
  }

  findByIdempotencyId(orgId: string, idempotencyId: string): Promise<InvocationRecord | null> {
    return this.one("select * from invocations where org_id = ? and idempotency_id = ?", [orgId, idempotencyId]);
  }

  /** One insert on conflict do nothing (the idempotency id's unique index), returning the row as stored. */
  async insert(record: InvocationRecord): Promise<InvocationRecord | null> {
    return (await insertInvocation(this.em, record)) ?? null;
  }

  update(rows: readonly InvocationRecord[]): Promise<void> {
    return updateInvocations(this.em, rows);
  }

  /** Deletes an invocation; its log lines go with it (foreign key cascade). */
  async remove(invocationId: string): Promise<void> {
    await this.em.execute("delete from invocations where invocation_id = ?", [invocationId]);
  }

  async invokedIdempotencyIds(orgId: string, idempotencyIds: string[]): Promise<Set<string>> {
    if (idempotencyIds.length === 0) return new Set();
    const rows = await readRows(this.em, "select idempotency_id from invocations where org_id = ? and idempotency_id = any(?::text[])", [
      orgId,
      textArrayLiteral(idempotencyIds),
    ]);
    return new Set(rows.map((row) => row.idempotency_id as string));
  }

  /** Up to `limit` log lines after line `afterSeq`, in order. */
  async logsAfter(invocationId: string, afterSeq: number, limit: number): Promise<InvocationLogRecord[]> {
    const rows = await readRows(
      this.em,
      // Ordered by the column, not the output's text of it.
      "select l.seq::text as seq, l.invocation_id, l.process, l.log, l.partial_id, l.timestamp from invocation_logs l where l.invocation_id = ? and l.seq > ? order by l.seq limit ?",
      [invocationId, afterSeq, limit],
    );
    return rows.map(logFromRow);
  }

  async logCount(invocationId: string): Promise<number> {
    const [row] = await readRows(this.em, "select count(*) as count from invocation_logs where invocation_id = ?", [invocationId]);
    return Number(row?.count ?? 0);
  }

  /**
   * Locks up to `limit` unfinished invocations of the org created before `before`, oldest first.
   * Rows another transaction holds are skipped (left for the next batch), so a bulk cancel never
   * waits on a runner's status report.
   */
  async lockActiveBefore(orgId: string, before: Date, limit: number): Promise<InvocationRecord[]> {
    const rows = await this.em.execute<Record<string, unknown>[]>(
      `select * from invocations where org_id = ? and last_status <> all(?::int[]) and created < ?
       order by created, invocation_id limit ? for update skip locked`,
      [orgId, TERMINAL_LITERAL, before, limit],
    );
    return rows.map(invocationFromRow);
  }

  async hasActiveBefore(orgId: string, before: Date): Promise<boolean> {
    const rows = await readRows(this.em, "select 1 from invocations where org_id = ? and last_status <> all(?::int[]) and created < ? limit 1", [
      orgId,
      TERMINAL_LITERAL,
      before,
    ]);
    return rows.length > 0;
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
    return { ...keysetPageRows(rows, search.limit, invocationFromRow), total };
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

  private async one(query: string, params: unknown[]): Promise<InvocationRecord | null> {
    const [row] = await readRows(this.em, query, params);
    return row ? invocationFromRow(row) : null;
  }
}

function logFromRow(row: Record<string, unknown>): InvocationLogRecord {
  return {
    seq: row.seq as string,
    invocationId: row.invocation_id as string,
    process: row.process as string,
    log: row.log as string,
    partialId: row.partial_id as string | null,
    timestamp: timestampFromRow(row.timestamp),
  };
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
