import { readRows, type EntityManager } from "@hangar/shared";
import type { Executor } from "../domain/leases";
import type { InvocationRecord } from "../domain/records";
import type { ClaimFilter, LeaseRepository, LogLine } from "../domain/repositories";
import { invocationFromRow, updateInvocations } from "./invocation-rows";

/**
 * Which invocations each executor runs. A container runner needs the action's image; a process
 * runner runs the command on the host, and also takes invocations that have neither image nor
 * command, so that they fail ("no command to run") instead of waiting in the queue forever.
 */
const EXECUTOR_SQL: Record<Executor, string> = {
  container: "i.container_image_uri is not null",
  process: `(coalesce(i.container_parameters->'command', 'null') not in ('null', '[]')
    or coalesce(i.container_parameters->'entry_point', 'null') not in ('null', '[]')
    or i.container_image_uri is null)`,
};

/** The runner protocol's repository over the invocation rows, in SQL: plain records, changes written by `update`. */
export class LeaseStore implements LeaseRepository {
  constructor(private readonly em: EntityManager) {}

  /**
   * Locks the oldest claimable invocation (inside a transaction). Claims take one advisory lock
   * first, so two runners never both see an org one below its limit; rows another writer holds
   * are skipped rather than waited for.
   */
  async lockNextClaimable(filter: ClaimFilter): Promise<InvocationRecord | null> {
    await this.em.execute("select pg_advisory_xact_lock(hashtextextended('hangar-compute:claim', 0))");
    const rows = await this.em.execute<Record<string, unknown>[]>(
      `with busy as (
         select org_id from invocations where lease_id is not null and lease_expires > ?
         group by org_id having count(*) >= ?
       )
       select i.* from invocations i
       where i.last_status = 0 and i.org_id not in (select org_id from busy)
         and (${filter.executors.map((e) => EXECUTOR_SQL[e]).join(" or ")})
         and (?::text is null or i.org_id = ?)
       order by i.created, i.invocation_id
       limit 1
       for update of i skip locked`,
      [filter.now, filter.concurrencyLimit, filter.orgId ?? null, filter.orgId ?? null],
    );
    return rows[0] ? invocationFromRow(rows[0]) : null;
  }

  /** Locks an invocation (inside a transaction) by its id, or by its current lease when no id is given. */
  async lock(by: { invocationId: string } | { leaseId: string }): Promise<InvocationRecord | null> {
    const [row] = await this.em.execute<Record<string, unknown>[]>(
      `select * from invocations where ${"invocationId" in by ? "invocation_id" : "lease_id"} = ? for update`,
      ["invocationId" in by ? by.invocationId : by.leaseId],
    );
    return row ? invocationFromRow(row) : null;
  }

  async findByLease(leaseId: string): Promise<InvocationRecord | null> {
    const [row] = await readRows(this.em, "select * from invocations where lease_id = ?", [leaseId]);
    return row ? invocationFromRow(row) : null;
  }

  update(row: InvocationRecord): Promise<void> {
    return updateInvocations(this.em, [row]);
  }

  /** Appends log lines to an invocation in one statement. */
  async appendLogs(invocationId: string, lines: LogLine[]): Promise<void> {
    if (lines.length === 0) return;
    await this.em.execute(
      `insert into invocation_logs (invocation_id, process, log, timestamp)
       select ?, l.process, l.log, l.timestamp from jsonb_to_recordset(?::jsonb) as l(process text, log text, timestamp timestamptz)`,
      [invocationId, JSON.stringify(lines)],
    );
  }

  /**
   * Unfinished invocations the sweeper should look at, oldest first: a lapsed lease, past their
   * timeout, or running without a lease and silent since `silentSince`. The sweeper decides each
   * one again under a row lock, so this is only a shortlist.
   */
  async sweepCandidates(now: Date, silentSince: Date, limit: number): Promise<string[]> {
    const rows = await this.em.execute<{ invocation_id: string }[]>(
      `select invocation_id from invocations
       where finished is null and (
         (lease_id is not null and lease_expires < ?)
         or (started is not null and started + timeout * interval '1 minute' < ?)
         or (lease_id is null and last_status between 1 and 4 and coalesce(last_heartbeat, started, created) < ?))
       order by created
       limit ?`,
      [now, now, silentSince, limit],
    );
    return rows.map((r) => r.invocation_id);
  }
}
