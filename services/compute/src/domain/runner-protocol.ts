import { invalidArgument, quoteValue, type UnitOfWork } from "@hangar/shared";
import { moveInvocation } from "./invocation-lifecycle";
import type { InvocationStatusValue } from "./invocation-status";
import { grantLease, renewLease, requireLease, type Executor, type LeaseSettings } from "./leases";
import type { ActionRecord, ActionVersionRecord, InvocationRecord } from "./records";
import type { LogLine, RunnerRepositories } from "./repositories";

/** Log sources a runner may write (wire-notes.md lists `firelens_log_router` too: the hosted platform's, not a runner's). */
const LOG_PROCESSES = ["setup", "action", "output_handler", "monitor"];

/** A claimed invocation with the action at its digest (absent when the action was deleted since: the invocation carries what the run needs). */
export interface Claim {
  invocation: InvocationRecord;
  action?: { action: ActionRecord; version: ActionVersionRecord };
}

/**
 * Hands the oldest claimable invocation to a runner (see grantLease), or none: within the org's
 * concurrency limit, of a kind its executors run, optionally of one org.
 */
export async function claimInvocation(
  uow: UnitOfWork<RunnerRepositories>,
  settings: LeaseSettings,
  claim: { runnerId: string; executors: Executor[]; orgId?: string | undefined; concurrencyLimit: number },
): Promise<Claim | undefined> {
  const now = new Date();
  const invocation = await uow.transaction(async ({ leases }) => {
    const next = await leases.lockNextClaimable({ executors: claim.executors, orgId: claim.orgId, concurrencyLimit: claim.concurrencyLimit, now });
    if (!next) return null;
    grantLease(next, claim.runnerId, settings, now);
    await leases.update(next);
    return next;
  });
  if (!invocation) return undefined;
  const { actions } = uow.repositories();
  const action = await actions.find(invocation.actionOrgId, invocation.actionName);
  const version = action ? await actions.findVersion(action.orgId, action.name, invocation.actionDigest) : null;
  return { invocation, ...(action && version ? { action: { action, version } } : {}) };
}

/**
 * Renews a lease (found by the invocation's id when given, else by the lease) and records the
 * heartbeat; an invocation that has ended answers `cancelRequested` instead (see renewLease).
 */
export async function renewRunnerLease(
  uow: UnitOfWork<RunnerRepositories>,
  settings: LeaseSettings,
  renewal: { leaseId: string; invocationId?: string | undefined },
): Promise<{ cancelRequested: true } | { cancelRequested: false; leaseExpires: Date }> {
  const { leaseId } = renewal;
  return uow.transaction(async ({ leases }) => {
    const row = await leases.lock(renewal.invocationId ? { invocationId: renewal.invocationId } : { leaseId });
    const { cancelRequested } = renewLease(row, leaseId, settings, new Date());
    if (cancelRequested) return { cancelRequested };
    await leases.update(row!);
    return { cancelRequested, leaseExpires: row!.leaseExpires! };
  });
}

/** Appends a runner's log lines (checked: `entries[i].process` names one of the log sources) to the invocation it holds. */
export async function appendRunnerLogs(uow: UnitOfWork<RunnerRepositories>, leaseId: string, lines: LogLine[]): Promise<void> {
  lines.forEach((line, i) => checkLogProcess(line.process, `entries[${i}].process`));
  const { leases } = uow.repositories();
  const row = requireLease(await leases.findByLease(leaseId), leaseId);
  await leases.appendLogs(row.invocationId, lines);
}

/** Moves the invocation a runner holds to `status` under the transition rules; a lost lease is refused. */
export async function reportRunnerStatus(uow: UnitOfWork<RunnerRepositories>, leaseId: string, status: InvocationStatusValue, detail: string | null): Promise<InvocationRecord> {
  return uow.transaction(async ({ leases }) => {
    const leased = requireLease(await leases.lock({ leaseId }), leaseId);
    moveInvocation(leased, status, detail);
    await leases.update(leased);
    return leased;
  });
}

/** Checks a runner call's `lease_id`: required (checked before the rest of the request). */
export function requireLeaseId(leaseId: string): string {
  if (leaseId.trim() === "") throw invalidArgument("lease_id", "is required");
  return leaseId;
}

function checkLogProcess(process: string, field: string): void {
  if (!LOG_PROCESSES.includes(process)) {
    throw invalidArgument(field, `must be one of ${LOG_PROCESSES.join(", ")}, got ${quoteValue(process)}`);
  }
}
