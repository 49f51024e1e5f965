import type { PeriodicTask, PlatformConfig, ServiceDefinition } from "@hangar/shared";
import { ComputeService } from "@hangar/shared/proto/compute";
import { DEFAULT_CONCURRENCY_LIMIT } from "./domain/compute-defaults";
import { leaseSettings, type LeaseSettings } from "./domain/leases";
import { startSweeper } from "./domain/sweeper";
import { triggerEvaluationConsumer } from "./events/trigger-evaluation-consumer";
import { createActionHandlers } from "./rpc/action-handlers";
import { createInvocationHandlers } from "./rpc/invocation-handlers";
import { createRunnerHandlers } from "./rpc/runner-handlers";
import { createTriggerHandlers } from "./rpc/trigger-handlers";
import { computeEntities } from "./store/entities";
import { computeMigrations } from "./store/migrations";

/** Options of the compute service. */
export interface ComputeServiceOptions {
  /** Runner lease timings; unset ones take the defaults. */
  leases?: Partial<LeaseSettings>;
  /** How many invocations of one org may run at once (default 4). */
  concurrencyLimit?: number;
}

/** The compute service's options as the configuration (`RUNNER_*`, `INVOCATION_CONCURRENCY_LIMIT`) sets them. */
export function computeOptionsFromConfig({ compute }: Pick<PlatformConfig, "compute">): ComputeServiceOptions {
  return {
    leases: {
      leaseMs: compute.runnerLeaseSeconds * 1000,
      heartbeatTimeoutMs: compute.runnerHeartbeatTimeoutSeconds * 1000,
      sweepIntervalMs: compute.runnerSweepIntervalMs,
    },
    concurrencyLimit: compute.invocationConcurrencyLimit,
  };
}

/** The compute service: actions, invocations, triggers and the runner protocol (with its sweeper). */
export function computeService(options: ComputeServiceOptions = {}): ServiceDefinition {
  const leases = leaseSettings(options.leases);
  const concurrencyLimit = options.concurrencyLimit ?? DEFAULT_CONCURRENCY_LIMIT;
  let sweeper: PeriodicTask | undefined;
  return {
    name: "compute",
    entities: [...computeEntities],
    migrations: computeMigrations,
    routes: (router, context) =>
      router.service(ComputeService, {
        ...createActionHandlers(context),
        ...createInvocationHandlers(context, concurrencyLimit),
        ...createTriggerHandlers(context),
        ...createRunnerHandlers(context, leases, concurrencyLimit),
      }),
    consumers: (context) => [triggerEvaluationConsumer(context)],
    async onStart({ orm, runtime }) {
      sweeper = startSweeper({ orm, settings: leases, logger: runtime.logger });
    },
    onStop: async () => sweeper?.stop(),
  };
}
