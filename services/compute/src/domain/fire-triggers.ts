import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { quoteValue, type Logger, type UnitOfWork, type UserDirectory } from "@hangar/shared";
import { parseUploadDestination, storedUploadDestination } from "./invocation-request";
import { createInvocation, type InvocationRequest } from "./invoke";
import { eventSubject, type PlatformEvent } from "./platform-events";
import type { TriggerDispatchRecord, TriggerRecord } from "./records";
import type { DispatchOutcome, NewDispatch, TriggerModelRepositories } from "./repositories";
import { failureDetail, requireServiceUser } from "./trigger-evaluation";
import { runGates, type GateReaders } from "./trigger-gates";
import { renderPlaceholders, valueAt, type TriggerNamespace } from "./trigger-namespace";

/** Posts a message to a Slack channel (an incoming webhook); rejects when every attempt failed. */
export interface SlackSender {
  /** True when the deployment has a webhook for the channel. */
  knows(channelId: string): boolean;
  post(channelId: string, text: string): Promise<void>;
}

/** What firing a trigger runs on. */
export interface FiringDeps {
  uow: UnitOfWork<TriggerModelRepositories>;
  users: UserDirectory;
  slack: SlackSender;
  logger: Logger;
}

/**
 * The dispatches a matched event claims: one per accepted target, keyed by the idempotency token.
 * `namespace`, when given, is stored with them for a retry after a crash (a tick's is rebuilt instead).
 */
export function dispatchRows(trigger: TriggerRecord, event: PlatformEvent, token: string, targets: JsonObject[], now: Date, namespace: TriggerNamespace | null = null): NewDispatch[] {
  const datasetId = typeof event.data.dataset_id === "string" ? event.data.dataset_id : null;
  return targets.map((target) => ({
    triggerId: trigger.triggerId,
    orgId: trigger.orgId,
    idempotencyToken: token,
    targetId: String(target.target_id),
    targetType: String(target.type),
    eventType: event.type,
    eventId: event.id,
    subject: eventSubject(event),
    datasetId,
    status: "claimed",
    statusDetail: null,
    resultRef: null,
    claimedAt: now,
    finalizedAt: null,
    namespace,
  }));
}

/**
 * Fires the org's v2 triggers subscribed to an event: each whose gates pass claims a dispatch per
 * accepted target (the unique slot makes a redelivered event or a second replica claim nothing)
 * and runs what it claimed. A target that fails is recorded `failed` with the reason.
 */
export async function fireEvent(deps: FiringDeps, event: PlatformEvent, namespace: TriggerNamespace, readers: GateReaders): Promise<TriggerDispatchRecord[]> {
  const fired: TriggerDispatchRecord[] = [];
  for (const trigger of await deps.uow.repositories().triggerModel.subscribedTo(event.orgId, event.type)) {
    fired.push(...(await fireTrigger(deps, trigger, event, namespace, readers)));
  }
  return fired;
}

/** Fires one trigger for an event: when its gates pass, claims and runs a dispatch per accepted target (an ingestion rule's run is one). */
export async function fireTrigger(deps: FiringDeps, trigger: TriggerRecord, event: PlatformEvent, namespace: TriggerNamespace, readers: GateReaders): Promise<TriggerDispatchRecord[]> {
  const plan = await runGates(trigger, event, { ...namespace, records: { ...namespace.records, trigger: triggerRecordOf(trigger) } }, readers);
  if (!plan.wouldFire) return [];
  const claimed = await deps.uow.repositories().triggerModel.claim(dispatchRows(trigger, event, plan.token!, plan.accepted, new Date(), namespace));
  return runDispatches(deps, [{ trigger, namespace, claimed }]);
}

/** Claimed dispatches of one trigger for one event, with the namespace their targets render from. */
export interface ClaimedFiring {
  trigger: TriggerRecord;
  namespace: TriggerNamespace;
  claimed: TriggerDispatchRecord[];
}

/** Runs claimed dispatches, at most `concurrency` at once, and records each outcome. */
export async function runDispatches(deps: FiringDeps, firings: ClaimedFiring[], concurrency = 16): Promise<TriggerDispatchRecord[]> {
  const queue = dispatchQueue(deps, concurrency);
  queue.push(firings);
  return queue.drain();
}

/** A pool of `concurrency` workers that run claimed dispatches as they are pushed; `drain` waits for all. */
export interface DispatchQueue {
  push(firings: ClaimedFiring[]): void;
  drain(): Promise<TriggerDispatchRecord[]>;
}

/**
 * Starts a DispatchQueue. Outcomes are written in batches of FINISH_BATCH (and the rest on drain):
 * one statement per dispatch cost more than the Slack posts themselves at 10,000 dispatches a tick.
 */
export function dispatchQueue(deps: FiringDeps, concurrency: number): DispatchQueue {
  const work: { trigger: TriggerRecord; namespace: TriggerNamespace; dispatch: TriggerDispatchRecord }[] = [];
  const workers: Promise<void>[] = [];
  const writes: Promise<void>[] = [];
  let outcomes: DispatchOutcome[] = [];
  let failure: unknown;
  // A failed write is kept for drain to throw: an unobserved rejection would end the process.
  const flush = () => {
    const batch = outcomes;
    outcomes = [];
    writes.push(deps.uow.repositories().triggerModel.finish(batch).catch((error: unknown) => void (failure ??= error)));
  };
  let next = 0;
  let active = 0;
  const worker = async () => {
    active++;
    while (next < work.length) {
      const item = work[next++]!;
      outcomes.push(await runDispatch(deps, item.trigger, item.dispatch, item.namespace));
      if (outcomes.length >= FINISH_BATCH) flush();
    }
    active--;
  };
  return {
    push(firings) {
      work.push(...firings.flatMap(({ trigger, namespace, claimed }) => claimed.map((dispatch) => ({ trigger, namespace, dispatch }))));
      while (active < concurrency && next + active < work.length) workers.push(worker());
    },
    async drain() {
      await Promise.all(workers);
      flush();
      await Promise.all(writes);
      if (failure !== undefined) throw failure;
      return work.map((item) => item.dispatch);
    },
  };
}

const FINISH_BATCH = 200;

/** Runs one target; a failure becomes the dispatch's `failed` outcome with the reason. */
async function runDispatch(deps: FiringDeps, trigger: TriggerRecord, dispatch: TriggerDispatchRecord, namespace: TriggerNamespace): Promise<DispatchOutcome> {
  const target = (trigger.targets ?? []).find((t) => t.target_id === dispatch.targetId);
  try {
    if (!target) throw new Error(`target ${quoteValue(dispatch.targetId)} was removed`);
    const resultRef = await runTarget(deps, trigger, target, dispatch, namespace);
    Object.assign(dispatch, { status: "dispatched", resultRef });
    return { dispatchId: dispatch.dispatchId, status: "dispatched", detail: null, resultRef };
  } catch (error) {
    const detail = failureDetail(error);
    deps.logger.warn({ triggerId: trigger.triggerId, targetId: dispatch.targetId, detail }, "trigger dispatch failed");
    Object.assign(dispatch, { status: "failed", statusDetail: detail });
    return { dispatchId: dispatch.dispatchId, status: "failed", detail, resultRef: null };
  }
}

async function runTarget(deps: FiringDeps, trigger: TriggerRecord, target: JsonObject, dispatch: TriggerDispatchRecord, namespace: TriggerNamespace): Promise<string | null> {
  if (target.type === "send_slack_message") {
    await deps.slack.post(String(target.channel_id), renderPlaceholders(String(target.text), namespace));
    return null;
  }
  await requireServiceUser(trigger, deps.users);
  const request = invocationRequest(trigger, target, dispatch, namespace);
  const { row } = await deps.uow.transaction((repositories) => createInvocation(repositories, request));
  return row.invocationId;
}

/**
 * The invocation an action target asks for: run as the trigger's creator, on the event's dataset,
 * with the event's file (or the target's patterns) as input; its idempotency id is the slot's, so a
 * dispatch retried after a crash creates no second invocation.
 */
function invocationRequest(trigger: TriggerRecord, target: JsonObject, dispatch: TriggerDispatchRecord, namespace: TriggerNamespace): InvocationRequest {
  const action = target.action as JsonObject;
  const file = valueAt(namespace, "file.relative_path");
  const patterns = [...((target.required_inputs as string[] | null) ?? []), ...((target.additional_inputs as string[] | null) ?? [])];
  return {
    orgId: trigger.orgId,
    submitter: trigger.serviceUserId,
    action: { name: String(action.name), ownerOrgId: typeof action.owner === "string" ? action.owner : trigger.orgId, digest: typeof action.digest === "string" ? action.digest : undefined },
    dataSource: { type: "Dataset", id: dispatch.datasetId ?? "" },
    inputData: typeof file === "string" ? [file, ...((target.additional_inputs as string[] | null) ?? [])] : patterns,
    idempotencyId: `trigger:${trigger.triggerId}:${dispatch.idempotencyToken}:${dispatch.targetId}`,
    computeRequirementOverrides: (target.compute_requirement_overrides as JsonObject | null) ?? null,
    containerParameterOverrides: (target.container_parameter_overrides as JsonObject | null) ?? null,
    parameterValues: renderPlaceholders((target.parameter_values as JsonObject | null) ?? {}, namespace),
    richInputData: target.invocation_input ?? null,
    uploadDestination: uploadDestinationOf(target),
    timeout: typeof target.timeout === "number" ? target.timeout : undefined,
    source: { type: "Trigger", id: trigger.triggerId },
  };
}

/** A target's `upload_destination` (a bucket and prefix, or the SDK's dataset form) as invocations store it. */
function uploadDestinationOf(target: JsonObject): { bucket: string; prefix: string } | null {
  const destination = parseUploadDestination(target.upload_destination ?? undefined);
  return destination ? storedUploadDestination(destination) : null;
}

/** The `trigger` namespace root: the trigger firing. */
export function triggerRecordOf(trigger: TriggerRecord): JsonObject {
  return {
    trigger_id: trigger.triggerId,
    name: trigger.name,
    org_id: trigger.orgId,
    enabled: trigger.enabled,
    fires_on: trigger.firesOn as JsonValue,
    engine: trigger.engine,
    created: trigger.created.toISOString(),
    created_by: trigger.createdBy,
  };
}
