import { ormUnitOfWork, recordEvent, startPeriodicTask, type Orm, type PeriodicTask, type PlatformConfig, type ServiceContext, type ServiceDefinition, type UnitOfWork } from "@hangar/shared";
import { ComputeService } from "@hangar/shared/proto/compute";
import { adminUserDirectory } from "./admin-user-directory";
import { dataServiceClients, dataServiceDatasets, dataServiceEntities, dataServiceGates, dataServiceQueries } from "./data-service-clients";
import type { SlackSender } from "./domain/fire-triggers";
import { schedulerSettings, startTriggerScheduler, type SchedulerSettings } from "./domain/trigger-scheduler";
import { triggerDispatchConsumer, type TriggerDispatchDeps } from "./events/trigger-dispatch-consumer";
import { createTriggerModelHandlers } from "./rpc/trigger-model-handlers";
import { createScheduledTriggerHandlers } from "./rpc/scheduled-trigger-handlers";
import { backgroundJobs, type BackgroundJobs } from "./domain/existing-files";
import { dataServiceIngestableMarks, dataServiceRulePaths, dataServiceUningestedFiles } from "./ingestion-files";
import { markIngestableUploads, resendRulePaths, type UploadedFileVersion } from "./domain/ingestable-files";
import { seedDefaultRules } from "./domain/ingestion-rule-defaults";
import { createIngestionRuleHandlers } from "./rpc/ingestion-rule-handlers";
import { IngestionRuleStore } from "./store/ingestion-rule-store";
import { slackWebhooks } from "./slack-webhooks";
import { ingestActionScript } from "./builtin-action-script";
import { ensureBuiltinActions, mcapIngestionAction } from "./domain/builtin-actions";
import { TriggerModelStore } from "./store/trigger-model-store";
import { DEFAULT_CONCURRENCY_LIMIT } from "./domain/compute-defaults";
import { DEFAULT_ACTIVE_TRIGGER_LIMIT } from "./domain/active-trigger-cap";
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
  /** The trigger scheduler's clock, interval, batch and catch-up bound; unset ones take the defaults. */
  scheduler?: Partial<SchedulerSettings>;
  /** Slack channel id to incoming-webhook URL: the channels Slack targets may name (default none). */
  slackWebhooks?: Record<string, string>;
  /** How many triggers an org may have enabled (default 1000; ingestion rules' own not counted). */
  activeTriggerLimit?: number;
}

/** The compute service's options as the configuration (`RUNNER_*`, `INVOCATION_CONCURRENCY_LIMIT`, `TRIGGER_SCHEDULER_INTERVAL_MS`, `TRIGGER_DISPATCH_LEASE_SECONDS`, `SLACK_WEBHOOKS`, `TRIGGER_ACTIVE_LIMIT`) sets them. */
export function computeOptionsFromConfig({ compute }: Pick<PlatformConfig, "compute">): ComputeServiceOptions {
  return {
    leases: {
      leaseMs: compute.runnerLeaseSeconds * 1000,
      heartbeatTimeoutMs: compute.runnerHeartbeatTimeoutSeconds * 1000,
      sweepIntervalMs: compute.runnerSweepIntervalMs,
    },
    concurrencyLimit: compute.invocationConcurrencyLimit,
    scheduler: { intervalMs: compute.triggerSchedulerIntervalMs, leaseMs: compute.triggerDispatchLeaseSeconds * 1000 },
    slackWebhooks: compute.slackWebhooks,
    activeTriggerLimit: compute.triggerActiveLimit,
  };
}

/** How long after a failed resend of rule patterns (the data service unreachable) it is tried again. */
const RESEND_RETRY_MS = 10_000;

/**
 * Sends the rule patterns of the orgs migration 0011 listed, right after start; retried while it
 * fails, and stopped once the list is empty (rule changes send their own).
 */
function startRulePathsResend(context: ServiceContext): PeriodicTask {
  const uow = computeUnitOfWork(context.orm);
  const replica = dataServiceRulePaths(dataServiceClients(context));
  const task: PeriodicTask = startPeriodicTask({
    name: "rule patterns resend",
    intervalMs: RESEND_RETRY_MS,
    logger: context.runtime.logger,
    run: async () => {
      const sent = await resendRulePaths(uow, replica);
      void task.stop();
      return sent;
    },
  });
  task.wake();
  return task;
}

/** The compute service: actions, invocations, triggers and the runner protocol (with its sweeper). */
export function computeService(options: ComputeServiceOptions = {}): ServiceDefinition {
  const leases = leaseSettings(options.leases);
  const concurrencyLimit = options.concurrencyLimit ?? DEFAULT_CONCURRENCY_LIMIT;
  const scheduling = schedulerSettings(options.scheduler);
  const slack = slackWebhooks(options.slackWebhooks ?? {});
  let sweeper: PeriodicTask | undefined;
  let scheduler: PeriodicTask | undefined;
  let rulePathsResend: PeriodicTask | undefined;
  let jobs: BackgroundJobs | undefined;
  return {
    name: "compute",
    entities: [...computeEntities],
    migrations: computeMigrations,
    routes: (router, context) => {
      const uow = computeUnitOfWork(context.orm);
      const datasets = dataServiceDatasets(dataServiceClients(context));
      const users = adminUserDirectory(context);
      const model = { uow, slack, datasets, clock: scheduling.clock, activeTriggerLimit: options.activeTriggerLimit ?? DEFAULT_ACTIVE_TRIGGER_LIMIT };
      const clients = dataServiceClients(context);
      // Deletions write ComputeEntityDeleted events to the outbox; the relay is woken after each commit.
      const eventsWritten = () => context.eventsWritten();
      router.service(ComputeService, {
        ...createActionHandlers({ uow, eventsWritten }),
        ...createInvocationHandlers({ uow, datasets, concurrencyLimit, eventsWritten }),
        ...createTriggerHandlers({ uow, users, datasets, model, eventsWritten }),
        ...createScheduledTriggerHandlers(model),
        ...createTriggerModelHandlers({ ...model, entities: dataServiceEntities(clients), gatesFor: dataServiceGates(clients), eventsWritten }),
        ...createRunnerHandlers({ uow, settings: leases, concurrencyLimit, internalAuthSecret: context.runtime.internalAuthSecret }),
        ...createIngestionRuleHandlers({
          ...dispatchDeps(context, slack),
          uow,
          datasets,
          clock: scheduling.clock,
          rulePaths: dataServiceRulePaths(clients),
          files: dataServiceUningestedFiles(clients),
          jobs: (jobs ??= backgroundJobs(context.runtime.logger)),
          eventsWritten,
        }),
      });
    },
    consumers: (context) => {
      const dispatch = dispatchDeps(context, slack);
      const clients = dataServiceClients(context);
      const rules = { ...dispatch, uow: computeUnitOfWork(context.orm), datasets: dataServiceDatasets(clients), clock: scheduling.clock, rulePaths: dataServiceRulePaths(clients) };
      const beforeUpload = (orgId: string, uploader: string) => seedDefaultRules(rules, orgId, uploader);
      const marks = dataServiceIngestableMarks(clients);
      const markIngestable = (orgId: string, files: readonly UploadedFileVersion[]) => markIngestableUploads(rules.uow, marks, orgId, files);
      return [triggerEvaluationConsumer(evaluationDeps(context)), triggerDispatchConsumer({ ...dispatch, beforeUpload, markIngestable })];
    },
    async onStart(context) {
      const { orm, runtime } = context;
      await ensureBuiltinActions(computeUnitOfWork(orm), [mcapIngestionAction(process.execPath, ingestActionScript())]);
      sweeper = startSweeper({ uow: computeUnitOfWork(orm), settings: leases, logger: runtime.logger });
      scheduler = startTriggerScheduler(dispatchDeps(context, slack), scheduling);
      rulePathsResend = startRulePathsResend(context);
    },
    onStop: async () => {
      await jobs?.drain();
      await scheduler?.stop();
      await sweeper?.stop();
      await rulePathsResend?.stop();
    },
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
    triggerModel: new TriggerModelStore(em),
    ingestionRules: new IngestionRuleStore(em),
    // The outbox: deletions announce themselves here, in their own transaction.
    events: { record: (event) => { recordEvent(em, event); } },
  }));
}

function dispatchDeps(context: ServiceContext, slack: SlackSender): TriggerDispatchDeps {
  const clients = dataServiceClients(context);
  return {
    uow: computeUnitOfWork(context.orm),
    users: adminUserDirectory(context),
    slack,
    logger: context.runtime.logger,
    entities: dataServiceEntities(clients),
    gatesFor: dataServiceGates(clients),
  };
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
