import type { ServiceImpl } from "@connectrpc/connect";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { callerOf, unauthenticated, type Principal, type UnitOfWork } from "@hangar/shared";
import type { ComputeService, RunnerLogEntry } from "@hangar/shared/proto/compute";
import { checkStatus } from "../domain/invocation-status";
import { checkClaim, invocationApiKey, type LeaseSettings } from "../domain/leases";
import type { LogLine, RunnerRepositories } from "../domain/repositories";
import { appendRunnerLogs, claimInvocation, renewRunnerLease, reportRunnerStatus, requireLeaseId, type Claim } from "../domain/runner-protocol";
import { actionDefinitionToProto } from "./action-mappers";
import { invocationToProto } from "./invocation-mappers";

type RunnerHandlers = Pick<ServiceImpl<typeof ComputeService>, "claimInvocation" | "renewLease" | "appendLogs" | "reportStatus">;

/** What the runner protocol runs on: the lease timings, the org concurrency limit and the key invocation API tokens are signed with. */
export interface RunnerHandlerDeps {
  uow: UnitOfWork<RunnerRepositories>;
  settings: LeaseSettings;
  concurrencyLimit: number;
  internalAuthSecret: string;
}

/**
 * Implements the runner protocol of hangar.compute.v1.ComputeService: gRPC only, for platform
 * runners calling with a service principal signed with the internal key.
 */
export function createRunnerHandlers({ uow, settings, concurrencyLimit, internalAuthSecret }: RunnerHandlerDeps): RunnerHandlers {
  return {
    async claimInvocation(req, ctx) {
      requireRunner(callerOf(ctx));
      const executors = checkClaim(req.runnerId, req.executors);
      const claim = await claimInvocation(uow, settings, { runnerId: req.runnerId, executors, orgId: req.orgId, concurrencyLimit });
      return claim ? { lease: leaseToProto(claim, settings, internalAuthSecret) } : {};
    },

    async renewLease(req, ctx) {
      requireRunner(callerOf(ctx));
      const renewal = await renewRunnerLease(uow, settings, { leaseId: requireLeaseId(req.leaseId), invocationId: req.invocationId });
      return renewal.cancelRequested ? { cancelRequested: true } : { cancelRequested: false, leaseExpires: timestampFromDate(renewal.leaseExpires) };
    },

    async appendLogs(req, ctx) {
      requireRunner(callerOf(ctx));
      const leaseId = requireLeaseId(req.leaseId);
      await appendRunnerLogs(uow, leaseId, req.entries.map(logLine));
      return {};
    },

    async reportStatus(req, ctx) {
      requireRunner(callerOf(ctx));
      const leaseId = requireLeaseId(req.leaseId);
      const status = checkStatus(req.status, "status");
      return { invocation: invocationToProto(await reportRunnerStatus(uow, leaseId, status, req.detail || null)) };
    },
  };
}

/** Runners are platform components: users (even with a signed principal) are refused. */
function requireRunner(caller: Principal): void {
  if (caller.kind !== "service") {
    throw unauthenticated("the runner protocol is for platform runners: call it with a service principal signed with the internal key");
  }
}

function logLine(entry: RunnerLogEntry): LogLine {
  return { process: entry.process, log: entry.log, timestamp: entry.timestamp ? timestampDate(entry.timestamp) : new Date() };
}

/** The lease as the runner gets it: the invocation, the action at its digest, and the invocation's API token. */
function leaseToProto({ invocation, action }: Claim, settings: LeaseSettings, internalAuthSecret: string) {
  return {
    leaseId: invocation.leaseId!,
    invocation: invocationToProto(invocation),
    ...(action ? { action: actionDefinitionToProto(action.action, action.version) } : {}),
    leaseExpires: timestampFromDate(invocation.leaseExpires!),
    apiKey: invocationApiKey(invocation, internalAuthSecret),
    renewIntervalMs: BigInt(Math.floor(settings.leaseMs / 3)),
  };
}
