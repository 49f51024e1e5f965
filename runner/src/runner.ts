import { setTimeout as sleep } from "node:timers/promises";
import type { RunnerLease } from "@hangar/shared/proto/compute";
import { createComputeClient } from "./compute-client";
import { containerExecutor, detectContainerCli, processExecutor, type ActionExecutor } from "./executors";
import { runLease, type RunDeps } from "./invocation-run";
import { validateRunnerOptions, type ExecutorKind, type ResolvedRunnerOptions, type RunnerOptions } from "./runner-options";

/** A started runner. */
export interface Runner {
  runnerId: string;
  /** Stops claiming, kills the actions still running (their leases lapse, so they are queued again) and waits for the runs to end. */
  stop(): Promise<void>;
}

/**
 * Starts a runner: it claims queued invocations from the compute service (polling while the
 * queue is empty), runs up to `concurrency` of them at once with its executors, and reports each
 * one's progress and end under its lease.
 */
export async function startRunner(options: RunnerOptions): Promise<Runner> {
  const resolved = validateRunnerOptions(options);
  const deps: RunDeps = {
    compute: createComputeClient(resolved),
    options: resolved,
    executors: await createExecutors(resolved),
  };
  const shutdown = new AbortController();
  const active = new Set<Promise<void>>();
  const start = (lease: RunnerLease) => {
    const run = runLease(lease, deps, shutdown.signal)
      .catch((error: unknown) => resolved.logger.error({ err: error, invocationId: lease.invocation?.invocationId }, "invocation run failed"))
      .finally(() => active.delete(run));
    active.add(run);
  };
  const loop = async () => {
    while (!shutdown.signal.aborted) {
      if (active.size >= resolved.concurrency) {
        await Promise.race(active);
        continue;
      }
      const lease = await claim(deps).catch((error: unknown) => {
        resolved.logger.warn({ err: error }, "claim failed");
        return undefined;
      });
      // A lease granted while stopping is left to lapse: the sweeper queues the invocation again.
      if (lease && !shutdown.signal.aborted) start(lease);
      else if (!lease) await sleep(resolved.pollIntervalMs, undefined, { signal: shutdown.signal }).catch(() => undefined);
    }
  };
  const looping = loop();
  resolved.logger.info({ runnerId: resolved.runnerId, executors: resolved.executors }, "runner started");
  return {
    runnerId: resolved.runnerId,
    async stop() {
      shutdown.abort();
      await looping;
      await Promise.all(active);
    },
  };
}

async function claim(deps: RunDeps): Promise<RunnerLease | undefined> {
  const { runnerId, executors, orgId } = deps.options;
  return (await deps.compute.claimInvocation({ runnerId, executors, ...(orgId ? { orgId } : {}) })).lease;
}

async function createExecutors(options: ResolvedRunnerOptions): Promise<Map<ExecutorKind, ActionExecutor>> {
  const executors = new Map<ExecutorKind, ActionExecutor>();
  if (options.executors.includes("process")) executors.set("process", processExecutor());
  if (options.executors.includes("container")) {
    const cli = options.containerCli ?? (await detectContainerCli());
    if (!cli) throw new Error("the container executor needs docker or podman on PATH");
    executors.set("container", containerExecutor({ cli, network: options.containerNetwork }));
  }
  return executors;
}
