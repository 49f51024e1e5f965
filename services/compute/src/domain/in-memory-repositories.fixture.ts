import { fromBinary } from "@bufbuild/protobuf";
import { snapshotUnitOfWork, type NewEvent, type UnitOfWork } from "@hangar/shared";
import { ComputeEntityDeletedSchema } from "@hangar/shared/proto/events";
import type { IngestionRuleRepository } from "./ingestion-rule-records";
import type { ActionRecord, ActionVersionRecord, InvocationRecord, TriggerEvaluationRecord, TriggerRecord } from "./records";
import type { ActionRepository, ComputeRepositories, InvocationRepository, LeaseRepository, TriggerModelRepository, TriggerRepository } from "./repositories";
import { InvocationStatus, isTerminal } from "./invocation-status";
import { occasionKey } from "./trigger-evaluation";

/** Everything the in-memory repositories hold; a transaction that throws puts back the state it started from. */
export interface MemoryState {
  actions: ActionRecord[];
  versions: ActionVersionRecord[];
  invocations: InvocationRecord[];
  triggers: TriggerRecord[];
  evaluations: TriggerEvaluationRecord[];
  logs: { invocationId: string; process: string; log: string }[];
  /** Evaluation ids by `<trigger id> <occasion key>`: one evaluation per trigger and occasion. */
  occasions: Record<string, string>;
  /** The events recorded to the outbox, in order. */
  events: NewEvent[];
}

/**
 * In-memory repositories for unit specs of the compute use cases: they test rules, not
 * persistence (the e2e suites test the stores against PostgreSQL). Records are returned by
 * reference, as a tracked ORM entity would be, so changes made in a transaction stay unless it throws.
 * Queries the specs do not need throw, so a spec that reaches one fails loudly.
 */
export function memoryUnitOfWork(state: MemoryState = emptyState()): { uow: UnitOfWork<ComputeRepositories>; state: MemoryState } {
  const uow = snapshotUnitOfWork(state, (current): ComputeRepositories => ({
    actions: memoryActions(current),
    invocations: memoryInvocations(current),
    leases: memoryLeases(current),
    triggers: memoryTriggers(current),
    triggerModel: memoryTriggerModel(),
    ingestionRules: memoryIngestionRules(),
    events: { record: (event) => void current.events.push(event) },
  }));
  return { uow, state };
}

/** A state with nothing in it. */
export function emptyState(): MemoryState {
  return { actions: [], versions: [], invocations: [], triggers: [], evaluations: [], logs: [], occasions: {}, events: [] };
}

function unused(name: string): never {
  throw new Error(`${name} is not implemented by the in-memory repositories`);
}

// The 0.62 trigger model is tested against PostgreSQL (its e2e suites); no spec here reaches it.
function memoryTriggerModel(): TriggerModelRepository {
  const refuse = () => unused("the trigger model");
  return { findById: refuse, subscribedTo: refuse, claim: refuse, finish: refuse, slots: refuse, dispatches: refuse, lockDue: refuse, setNextFire: refuse, reclaimStale: refuse, byIds: refuse };
}

function memoryIngestionRules(): IngestionRuleRepository {
  const refuse = () => unused("the ingestion rules");
  return { find: refuse, ofOrg: refuse, page: refuse, insert: refuse, remove: refuse, seeded: refuse, markSeeded: refuse, latestRuns: refuse, orgsToResendPaths: refuse, pathsResent: refuse };
}

/**
 * A copy of a stored record, as a database read gives: setting its fields changes nothing stored
 * until the repository's `update` (shallow: the use cases replace nested values, never edit them).
 */
function detached<T extends object>(row: T | undefined): T | null {
  return row === undefined ? null : { ...row };
}

/** Stores changed copies of invocations over the ones of the same id. */
function writeInvocations(state: MemoryState, rows: readonly InvocationRecord[]): void {
  for (const row of rows) state.invocations = state.invocations.map((i) => (i.invocationId === row.invocationId ? detached(row)! : i));
}

function memoryActions(state: MemoryState): ActionRepository {
  const sameAction = (record: ActionRecord) => (a: ActionRecord) => a.orgId === record.orgId && a.name === record.name;
  return {
    find: async (orgId, name) => detached(state.actions.find((a) => a.orgId === orgId && a.name === name)),
    findVersion: async (orgId, name, digest) => state.versions.find((v) => v.orgId === orgId && v.name === name && v.digest === digest) ?? null,
    async insert(record) {
      if (state.actions.some((a) => a.orgId === record.orgId && a.name === record.name)) return false;
      state.actions.push(detached(record)!);
      return true;
    },
    async saveVersion(record) {
      if (state.versions.some((v) => v.orgId === record.orgId && v.name === record.name && v.digest === record.digest)) return;
      state.versions.push({ orgId: record.orgId, name: record.name, digest: record.digest, definition: record.definition, created: new Date() });
    },
    update: async (record) => void (state.actions = state.actions.map((a) => (sameAction(record)(a) ? detached(record)! : a))),
    remove: async (record) => void (state.actions = state.actions.filter((a) => !sameAction(record)(a))),
    search: () => unused("actions.search"),
    metadataKeys: () => unused("actions.metadataKeys"),
  };
}

function memoryInvocations(state: MemoryState): InvocationRepository {
  const find = async (orgId: string, invocationId: string) => detached(state.invocations.find((i) => i.orgId === orgId && i.invocationId === invocationId));
  const active = (orgId: string, before: Date) => state.invocations.filter((i) => i.orgId === orgId && !isTerminal(i.lastStatus) && i.created < before);
  return {
    find,
    lock: find,
    findByIdempotencyId: async (orgId, id) => detached(state.invocations.find((i) => i.orgId === orgId && i.idempotencyId === id)),
    async insert(record) {
      if (record.idempotencyId && state.invocations.some((i) => i.orgId === record.orgId && i.idempotencyId === record.idempotencyId)) return null;
      state.invocations.push(detached(record)!);
      return record;
    },
    update: async (rows) => writeInvocations(state, rows),
    remove: async (id) => void (state.invocations = state.invocations.filter((i) => i.invocationId !== id)),
    invokedIdempotencyIds: async (orgId, ids) => new Set(state.invocations.filter((i) => i.orgId === orgId && ids.includes(i.idempotencyId ?? "")).map((i) => i.idempotencyId!)),
    logsAfter: () => unused("invocations.logsAfter"),
    logCount: () => unused("invocations.logCount"),
    lockActiveBefore: async (orgId, before, limit) => active(orgId, before).slice(0, limit).map((row) => detached(row)!),
    hasActiveBefore: async (orgId, before) => active(orgId, before).length > 0,
    runSummaries: () => unused("invocations.runSummaries"),
    search: () => unused("invocations.search"),
    countByStatus: () => unused("invocations.countByStatus"),
    countQueued: async () => state.invocations.filter((i) => i.lastStatus === InvocationStatus.Queued).length,
    medianCompletedSeconds: () => unused("invocations.medianCompletedSeconds"),
    activitySources: () => unused("invocations.activitySources"),
    groups: () => unused("invocations.groups"),
  };
}

function memoryLeases(state: MemoryState): LeaseRepository {
  return {
    lockNextClaimable: async () => detached(state.invocations.find((i) => i.lastStatus === 0)),
    lock: async (by) => detached(state.invocations.find((i) => ("invocationId" in by ? i.invocationId === by.invocationId : i.leaseId === by.leaseId))),
    findByLease: async (leaseId) => detached(state.invocations.find((i) => i.leaseId === leaseId)),
    update: async (row) => writeInvocations(state, [row]),
    appendLogs: async (invocationId, lines) => void state.logs.push(...lines.map((l) => ({ invocationId, process: l.process, log: l.log }))),
    sweepCandidates: async () => state.invocations.filter((i) => !isTerminal(i.lastStatus)).map((i) => i.invocationId),
  };
}

function memoryTriggers(state: MemoryState): TriggerRepository {
  return {
    find: async (orgId, name) => state.triggers.find((t) => t.orgId === orgId && t.name === name) ?? null,
    async insert(record) {
      if (state.triggers.some((t) => t.orgId === record.orgId && t.name === record.name)) return false;
      state.triggers.push(record);
      return true;
    },
    remove: (record) => void state.triggers.splice(state.triggers.indexOf(record), 1),
    lockActiveCount: async (orgId) => state.triggers.filter((t) => t.orgId === orgId && t.enabled && t.managedBy === null).length,
    search: () => unused("triggers.search"),
    reactingTo: async (orgId, cause) => state.triggers.filter((t) => t.orgId === orgId && t.causes.includes(cause)),
    evaluations: () => unused("triggers.evaluations"),
    async beginEvaluation(triggerId, occasion) {
      const trigger = state.triggers.find((t) => t.triggerId === triggerId);
      if (!trigger) return undefined;
      const key = `${triggerId} ${occasionKey(occasion)}`;
      const earlier = state.occasions[key];
      if (earlier !== undefined) {
        const found = evaluation(state, earlier);
        if (found.status === "evaluated") return undefined;
        Object.assign(found, { status: "pending", statusDetail: null });
        return earlier;
      }
      const created = newEvaluation(String(state.evaluations.length + 1), trigger, occasion.datasetId, occasion.cause);
      state.evaluations.push(created);
      state.occasions[key] = created.triggerEvaluationId;
      return created.triggerEvaluationId;
    },
    finishEvaluation: async (id, result) => void Object.assign(evaluation(state, id), { status: "evaluated", outcome: result.outcome, outcomeReason: result.reason }),
    failEvaluation: async (id, detail) => void Object.assign(evaluation(state, id), { status: "failed", statusDetail: detail }),
  };
}

function newEvaluation(id: string, trigger: TriggerRecord, datasetId: string, cause: string): TriggerEvaluationRecord {
  return {
    triggerEvaluationId: id,
    triggerId: trigger.triggerId,
    orgId: trigger.orgId,
    dataSourceType: "Dataset",
    dataSourceId: datasetId,
    transactionId: null,
    evaluationStart: new Date(),
    evaluationEnd: null,
    status: "pending",
    statusDetail: null,
    outcome: null,
    outcomeReason: null,
    cause,
  };
}

function evaluation(state: MemoryState, id: string): TriggerEvaluationRecord {
  const found = state.evaluations.find((e) => e.triggerEvaluationId === id);
  if (!found) throw new Error(`no evaluation ${id}`);
  return found;
}

/** An action of `orgId` with an empty definition (digest `d0`), private to its org unless overridden. */
export function anAction(orgId: string, name: string, overrides: Partial<ActionRecord> = {}): ActionRecord {
  const at = new Date("2026-01-01T00:00:00Z");
  return {
    orgId,
    name,
    accessibility: "organization",
    definition: {},
    digest: "d0",
    metadata: {},
    tags: [],
    published: null,
    created: at,
    createdBy: "alice",
    modified: at,
    modifiedBy: "alice",
    ...overrides,
  };
}

/** A Queued invocation of `orgId` of action `process`. */
export function anInvocation(orgId: string, invocationId: string, overrides: Partial<InvocationRecord> = {}): InvocationRecord {
  const created = new Date("2026-01-01T00:00:00Z");
  return {
    invocationId,
    orgId,
    actionOrgId: orgId,
    actionName: "process",
    actionDigest: "d0",
    dataSourceType: "Dataset",
    dataSourceId: "ds_1",
    inputData: [],
    richInputData: null,
    uploadDestination: null,
    idempotencyId: null,
    computeRequirements: {},
    containerParameters: {},
    parameterValues: {},
    sourceType: "Manual",
    sourceId: "alice",
    createdBy: "alice",
    containerImageUri: null,
    containerImageDigest: null,
    timeout: 30,
    lastStatus: 0,
    statusHistory: [{ status: 0, detail: null, timestamp: created.toISOString() }],
    lastHeartbeat: null,
    created,
    finished: null,
    started: null,
    leaseId: null,
    leaseRunner: null,
    leaseExpires: null,
    attempts: 0,
    ...overrides,
  };
}

/** The deletions announced to the outbox, as `[topic, key, entity type, entity id, org id]`. */
export function recordedDeletions(state: MemoryState): [string, string, string, string, string][] {
  return state.events.map((event) => {
    const deleted = fromBinary(ComputeEntityDeletedSchema, event.payload);
    return [event.topic, event.key, deleted.entityType, deleted.entityId, deleted.orgId];
  });
}
