import type { ServiceImpl } from "@connectrpc/connect";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { callerOf, invalidArgument, unauthenticated, type Principal, type ServiceContext, quoteValue } from "@hangar/shared";
import type { ComputeService, RunnerLogEntry } from "@hangar/shared/proto/compute";
import { moveInvocation } from "../domain/invocation-lifecycle";
import { checkStatus } from "../domain/invocation-status";
import { checkClaim, grantLease, invocationApiKey, renewLease, requireLease, type LeaseSettings } from "../domain/leases";
import { ActionStore } from "../store/action-store";
import type { InvocationRecord } from "../domain/records";
import { LeaseStore, type LogLine } from "../store/lease-store";
import { actionDefinitionToProto } from "./action-mappers";
import { invocationToProto } from "./invocation-mappers";

type RunnerHandlers = Pick<ServiceImpl<typeof ComputeService>, "claimInvocation" | "renewLease" | "appendLogs" | "reportStatus">;

/** Log sources a runner may write (wire-notes.md lists `firelens_log_router` too: the hosted platform's, not a runner's). */
const LOG_PROCESSES = ["setup", "action", "output_handler", "monitor"];

/**
 * Implements the runner protocol of hangar.compute.v1.ComputeService: gRPC only, for platform
 * runners calling with a service principal signed with the internal key.
 */
export function createRunnerHandlers(context: ServiceContext, settings: LeaseSettings, concurrencyLimit: number): RunnerHandlers {
  const store = () => new LeaseStore(context.orm.em.fork());
  return {
    async claimInvocation(req, ctx) {
      requireRunner(callerOf(ctx));
      const executors = checkClaim(req.runnerId, req.executors);
      const now = new Date();
      const s = store();
      const row = await s.transaction(async (tx) => {
        const next = await tx.lockNextClaimable({ executors, orgId: req.orgId, concurrencyLimit, now });
        if (next) grantLease(next, req.runnerId, settings, now);
        return next;
      });
      if (!row) return {};
      return { lease: await leaseToProto(new ActionStore(s.em), row, settings, context.runtime.internalAuthSecret) };
    },

    async renewLease(req, ctx) {
      requireRunner(callerOf(ctx));
      const leaseId = requireLeaseId(req.leaseId);
      const now = new Date();
      return store().transaction(async (tx) => {
        const row = await tx.lock(req.invocationId ? { invocationId: req.invocationId } : { leaseId });
        const { cancelRequested } = renewLease(row, leaseId, settings, now);
        return cancelRequested ? { cancelRequested } : { cancelRequested, leaseExpires: timestampFromDate(row!.leaseExpires!) };
      });
    },

    async appendLogs(req, ctx) {
      requireRunner(callerOf(ctx));
      const leaseId = requireLeaseId(req.leaseId);
      const lines = req.entries.map((entry, i) => logLine(entry, `entries[${i}]`));
      const s = store();
      const row = requireLease(await s.findByLease(leaseId), leaseId);
      await s.appendLogs(row.invocationId, lines);
      return {};
    },

    async reportStatus(req, ctx) {
      requireRunner(callerOf(ctx));
      const leaseId = requireLeaseId(req.leaseId);
      const status = checkStatus(req.status, "status");
      const row = await store().transaction(async (tx) => {
        const leased = requireLease(await tx.lock({ leaseId }), leaseId);
        moveInvocation(leased, status, req.detail || null);
        return leased;
      });
      return { invocation: invocationToProto(row) };
    },
  };
}

/** Runners are platform components: users (even with a signed principal) are refused. */
function requireRunner(caller: Principal): void {
  if (caller.kind !== "service") {
    throw unauthenticated("the runner protocol is for platform runners: call it with a service principal signed with the internal key");
  }
}

function requireLeaseId(leaseId: string): string {
  if (leaseId.trim() === "") throw invalidArgument("lease_id", "is required");
  return leaseId;
}

function logLine(entry: RunnerLogEntry, field: string): LogLine {
  if (!LOG_PROCESSES.includes(entry.process)) {
    throw invalidArgument(`${field}.process`, `must be one of ${LOG_PROCESSES.join(", ")}, got ${quoteValue(entry.process)}`);
  }
  return { process: entry.process, log: entry.log, timestamp: entry.timestamp ? timestampDate(entry.timestamp) : new Date() };
}

/** The lease as the runner gets it: the invocation, the action at its digest, and the invocation's API token. */
async function leaseToProto(actions: ActionStore, row: InvocationRecord, settings: LeaseSettings, internalAuthSecret: string) {
  const action = await actions.find(row.actionOrgId, row.actionName);
  const version = action ? await actions.findVersion(action.orgId, action.name, row.actionDigest) : null;
  return {
    leaseId: row.leaseId!,
    invocation: invocationToProto(row),
    // The action may have been deleted since: the invocation carries what the run needs anyway.
    ...(action && version ? { action: actionDefinitionToProto(action, version) } : {}),
    leaseExpires: timestampFromDate(row.leaseExpires!),
    apiKey: invocationApiKey(row, internalAuthSecret),
    renewIntervalMs: BigInt(Math.floor(settings.leaseMs / 3)),
  };
}
