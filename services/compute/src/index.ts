import type { PeriodicTask, ServiceDefinition } from "@hangar/shared";
import { ComputeService } from "@hangar/shared/proto/compute";
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
  /** Runner lease timings; unset ones come from the environment (`RUNNER_LEASE_SECONDS`, ...) or the defaults. */
  leases?: Partial<LeaseSettings>;
}

/** The compute service: actions, invocations, triggers and the runner protocol (with its sweeper). */
export function computeService(options: ComputeServiceOptions = {}): ServiceDefinition {
  const leases = leaseSettings(options.leases);
  let sweeper: PeriodicTask | undefined;
  return {
    name: "compute",
    entities: [...computeEntities],
    migrations: computeMigrations,
    routes: (router, context) =>
      router.service(ComputeService, {
        ...createActionHandlers(context),
        ...createInvocationHandlers(context),
        ...createTriggerHandlers(context),
        ...createRunnerHandlers(context, leases),
      }),
    consumers: (context) => [triggerEvaluationConsumer(context)],
    async onStart({ orm, runtime }) {
      sweeper = startSweeper({ orm, settings: leases, logger: runtime.logger });
    },
    onStop: async () => sweeper?.stop(),
  };
}
