import { failedPrecondition, invalidArgument, mintInvocationToken, newId, quoteValue } from "@hangar/shared";
import type { InvocationRecord } from "./records";
import { moveInvocation } from "./invocation-lifecycle";
import { InvocationStatus, isTerminal } from "./invocation-status";

/** Timings of the runner protocol (configured by `RUNNER_*`); every one can be shortened for tests. */
export interface LeaseSettings {
  /** How long a claim or a renewal holds the invocation (default 30 s). */
  leaseMs: number;
  /** How long a running invocation without a lease may go without a heartbeat (default 120 s). */
  heartbeatTimeoutMs: number;
  /** How often the sweeper looks for lapsed leases, timeouts and silent invocations (default 1 s). */
  sweepIntervalMs: number;
  /** Claims an invocation may get before a lost lease fails it rather than queueing it again (3). */
  maxAttempts: number;
}

/** Extra life of an invocation's API token past its timeout, for the uploads that follow the action. */
const API_KEY_GRACE_SECONDS = 10 * 60;

/** The lease settings: the values given, else the defaults. */
export function leaseSettings(overrides: Partial<LeaseSettings> = {}): LeaseSettings {
  return { leaseMs: 30_000, heartbeatTimeoutMs: 120_000, sweepIntervalMs: 1000, maxAttempts: 3, ...overrides };
}

/** The executors a runner may offer: `process` runs a command on the host, `container` runs the action's image. */
export const EXECUTORS = ["process", "container"] as const;
export type Executor = (typeof EXECUTORS)[number];

/** Checks a claim's runner id and executors. */
export function checkClaim(runnerId: string, executors: string[]): Executor[] {
  if (runnerId.trim() === "") throw invalidArgument("runner_id", "is required");
  if (executors.length === 0) throw invalidArgument("executors", `must name at least one of ${EXECUTORS.join(", ")}`);
  for (const [i, executor] of executors.entries()) {
    if (!(EXECUTORS as readonly string[]).includes(executor)) {
      throw invalidArgument(`executors[${i}]`, `must be one of ${EXECUTORS.join(", ")}, got ${quoteValue(executor)}`);
    }
  }
  return executors as Executor[];
}

/**
 * Hands a queued invocation to a runner: Scheduled, under a fresh lease, one more attempt, and its
 * timeout running from the first claim.
 */
export function grantLease(row: InvocationRecord, runnerId: string, settings: LeaseSettings, now = new Date()): void {
  moveInvocation(row, InvocationStatus.Scheduled, `claimed by runner ${runnerId}`, now);
  row.leaseId = newId("ls");
  row.leaseRunner = runnerId;
  row.leaseExpires = new Date(now.getTime() + settings.leaseMs);
  row.started ??= now;
  row.attempts += 1;
}

/** Whether `leaseId` is the invocation's lease and still holds at `now`. */
export function holdsLease(row: InvocationRecord, leaseId: string, now = new Date()): boolean {
  return row.leaseId === leaseId && row.leaseExpires !== null && row.leaseExpires > now;
}

/** Refuses a runner call made under a lease that lapsed, ended or was never granted. */
export function requireLease(row: InvocationRecord | null, leaseId: string, now = new Date()): InvocationRecord {
  if (!row || !holdsLease(row, leaseId, now)) throw failedPrecondition(`lease lost: lease ${quoteValue(leaseId)} has lapsed or was taken back`);
  return row;
}

/**
 * Renews a lease and records the heartbeat. An invocation that has ended answers `cancelRequested`
 * instead (its lease went with it): a user cancelled it, it timed out, or another runner finished it.
 */
export function renewLease(row: InvocationRecord | null, leaseId: string, settings: LeaseSettings, now = new Date()): { cancelRequested: boolean } {
  if (row && isTerminal(row.lastStatus)) return { cancelRequested: true };
  requireLease(row, leaseId, now);
  row!.leaseExpires = new Date(now.getTime() + settings.leaseMs);
  row!.lastHeartbeat = now;
  return { cancelRequested: false };
}

/** The API token an action gets: the invocation's submitter in its org, until its timeout has passed. */
export function invocationApiKey(row: InvocationRecord, internalAuthSecret: string): string {
  const started = Math.floor((row.started ?? row.created).getTime() / 1000);
  return mintInvocationToken(
    { orgId: row.orgId, userId: row.createdBy, invocationId: row.invocationId, exp: started + row.timeout * 60 + API_KEY_GRACE_SECONDS },
    internalAuthSecret,
  );
}
