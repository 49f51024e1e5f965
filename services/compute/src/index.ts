import { ormUnitOfWork, type Orm, type PeriodicTask, type PlatformConfig, type ServiceContext, type ServiceDefinition, type UnitOfWork } from "@hangar/shared";
import { ComputeService } from "@hangar/shared/proto/compute";
import { adminUserDirectory } from "./admin-user-directory";
import { dataServiceClients, dataServiceDatasets, dataServiceQueries } from "./data-service-clients";
import { DEFAULT_CONCURRENCY_LIMIT } from "./domain/compute-defaults";
import { runnerQueueDepth } from "./domain/invocation-reports";
import { leaseSettings, type LeaseSettings } from "./domain/leases";
import type { ComputeRepositories } from "./domain/repositories";
import { startSweeper } from "./domain/sweeper";
import { triggerEvaluationConsumer } from "./events/trigger-evaluation-consumer";
import { createActionHandlers } from "./rpc/action-handlers";
import { createInvocationHandlers } from "./rpc/invocation-handlers";
import { createRunnerHandlers } from "./rpc/runner-handlers";
import { createTriggerHandlers } from "./rpc/trigger-handlers";
import { ActionStore } from "./store/action-store";
import { computeEntities } from "./store/entities";
import { InvocationStore } from "./store/invocation-store";
import { LeaseStore } from "./store/lease-store";
import { computeMigrations } from "./store/migrations";
import { TriggerStore } from "./store/trigger-store";

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
    routes: (router, context) => {
      const uow = computeUnitOfWork(context.orm);
      const datasets = dataServiceDatasets(dataServiceClients(context));
      const users = adminUserDirectory(context);
      router.service(ComputeService, {
        ...createActionHandlers(uow),
        ...createInvocationHandlers({ uow, datasets, concurrencyLimit }),
        ...createTriggerHandlers({ uow, users, datasets }),
        ...createRunnerHandlers({ uow, settings: leases, concurrencyLimit, internalAuthSecret: context.runtime.internalAuthSecret }),
      });
    },
    consumers: (context) => [triggerEvaluationConsumer(evaluationDeps(context))],
    async onStart({ orm, runtime }) {
      sweeper = startSweeper({ uow: computeUnitOfWork(orm), settings: leases, logger: runtime.logger });
    },
    onStop: async () => sweeper?.stop(),
    gauges: ({ orm }) => [
      { name: "hangar_runner_queue_depth", help: "Invocations of every org waiting for a runner (Queued).", read: () => runnerQueueDepth(computeUnitOfWork(orm)) },
    ],
  };
}

/** The one place the compute service's stores are chosen: every use case reaches them through this unit of work. */
function computeUnitOfWork(orm: Orm): UnitOfWork<ComputeRepositories> {
  return ormUnitOfWork(orm, (em) => ({
    actions: new ActionStore(em),
    invocations: new InvocationStore(em),
    leases: new LeaseStore(em),
    triggers: new TriggerStore(em),
  }));
}

function evaluationDeps(context: ServiceContext) {
  const clientFor = dataServiceClients(context);
  return {
    uow: computeUnitOfWork(context.orm),
    dataFor: (orgId: string) => dataServiceQueries(clientFor(orgId)),
    users: adminUserDirectory(context),
    logger: context.runtime.logger,
  };
}
