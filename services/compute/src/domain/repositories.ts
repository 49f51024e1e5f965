import type { KeysetPage, KeysetPageRows, NewEvent, SearchPlan, SqlFragment } from "@hangar/shared";
import type { ActionScope } from "./action-search";
import type { IngestionRuleRepository } from "./ingestion-rule-records";
import type { ActivitySource } from "./invocation-activity";
import type { GroupSpec } from "./invocation-grouping";
import type { TimeWindow } from "./invocation-stats";
import type { Executor } from "./leases";
import type { ActionRecord, ActionVersionRecord, InvocationLogRecord, InvocationRecord, TriggerDispatchRecord, TriggerEvaluationRecord, TriggerRecord } from "./records";
import type { EvaluationOccasion, EvaluationOutcome } from "./trigger-evaluation";
import type { TriggerNamespace } from "./trigger-namespace";

/**
 * What the compute service's use cases need from persistence; `store/` implements it. Invocation
 * and action records are plain values: a change to one is written by its repository's `update`.
 * Other records a repository returns are tracked: changes made to them inside
 * `UnitOfWork.transaction` are written when it commits, as are queued removals.
 */
export interface ComputeRepositories {
  actions: ActionRepository;
  invocations: InvocationRepository;
  leases: LeaseRepository;
  triggers: TriggerRepository;
  triggerModel: TriggerModelRepository;
  ingestionRules: IngestionRuleRepository;
  events: EventRepository;
}

/** The outbox: an event recorded here is published after the unit of work commits, never if it rolls back. */
export interface EventRepository {
  record(event: NewEvent): void;
}

/** The repositories of the action operations. */
export type ActionRepositories = Pick<ComputeRepositories, "actions" | "events">;
/** The repositories of invoking and of the invocation operations. */
export type InvocationRepositories = Pick<ComputeRepositories, "actions" | "invocations" | "events">;
/** The repositories of the runner protocol and the sweeper. */
export type RunnerRepositories = Pick<ComputeRepositories, "actions" | "leases">;
/** The repositories of the sweeper. */
export type SweeperRepositories = Pick<ComputeRepositories, "leases">;
/** The repositories of the trigger operations and of trigger evaluation. */
export type TriggerRepositories = Pick<ComputeRepositories, "actions" | "invocations" | "triggers" | "events">;
/** The repositories of the 0.62 trigger model: its operations, event firing and the scheduler. */
export type TriggerModelRepositories = Pick<ComputeRepositories, "actions" | "invocations" | "triggers" | "triggerModel" | "events">;
/** The repositories of the ingestion rules: the rules, their managed triggers and those triggers' runs. */
export type IngestionRuleRepositories = TriggerModelRepositories & Pick<ComputeRepositories, "ingestionRules">;

/** One keyset page of a search and the number of matches (undefined above COUNT_CAP). */
export type SearchPage<T> = KeysetPageRows<T> & { total: number | undefined };

/** Actions and their digest history. */
export interface ActionRepository {
  /** An action; with `lock` (inside a transaction) concurrent edits of it wait for this one. */
  find(orgId: string, name: string, lock?: boolean): Promise<ActionRecord | null>;
  findVersion(orgId: string, name: string, digest: string): Promise<ActionVersionRecord | null>;
  /** Inserts a new action; false, writing nothing, when the org already has one of that name (also under a concurrent create). */
  insert(record: ActionRecord): Promise<boolean>;
  /** Records the action's current definition under its digest, unless that digest is already recorded. */
  saveVersion(record: ActionRecord): Promise<void>;
  /** Writes an action's editable fields (definition and digest, accessibility, metadata, tags, modification stamps). */
  update(record: ActionRecord): Promise<void>;
  /** Deletes an action; its earlier digests go with it. */
  remove(record: ActionRecord): Promise<void>;
  search(scope: ActionScope, plan: SearchPlan): Promise<SearchPage<ActionRecord>>;
  /** The distinct top-level metadata keys of the org's actions, sorted. */
  metadataKeys(orgId: string): Promise<string[]>;
}

/** An action's run counts in a time window. */
export interface RunSummary {
  actionOrgId: string;
  actionName: string;
  completed: number;
  failed: number;
  queued: number;
}

/** One group of group_invocations; the fields of dimensions not grouped by are null. */
export interface InvocationGroup {
  actionOrgId: string | null;
  actionName: string | null;
  sourceType: string | null;
  sourceId: string | null;
  triggerName: string | null;
  submitter: string | null;
  count: number;
}

/** Invocations, their logs and the figures computed over them. */
export interface InvocationRepository {
  find(orgId: string, invocationId: string): Promise<InvocationRecord | null>;
  /** Like `find`, holding the row lock until the transaction ends, so racing status moves apply one after the other. */
  lock(orgId: string, invocationId: string): Promise<InvocationRecord | null>;
  findByIdempotencyId(orgId: string, idempotencyId: string): Promise<InvocationRecord | null>;
  /**
   * Inserts a new invocation and returns it as stored, or null, writing nothing, when the org
   * already has an invocation with its idempotency id (also under a concurrent insert).
   */
  insert(record: InvocationRecord): Promise<InvocationRecord | null>;
  /** Writes the lifecycle fields of invocations the caller holds locked (status, lease, heartbeat, timings, digest, destination), in one statement. */
  update(records: readonly InvocationRecord[]): Promise<void>;
  /** Deletes an invocation with its log lines. */
  remove(invocationId: string): Promise<void>;
  /** The ids among `idempotencyIds` that already name an invocation of the org. */
  invokedIdempotencyIds(orgId: string, idempotencyIds: string[]): Promise<Set<string>>;
  /** Up to `limit` log lines after line `afterSeq`, in order. */
  logsAfter(invocationId: string, afterSeq: number, limit: number): Promise<InvocationLogRecord[]>;
  logCount(invocationId: string): Promise<number>;
  /**
   * Locks up to `limit` unfinished invocations of the org created before `before`, oldest first,
   * skipping rows another transaction holds (left for the next batch).
   */
  lockActiveBefore(orgId: string, before: Date, limit: number): Promise<InvocationRecord[]>;
  hasActiveBefore(orgId: string, before: Date): Promise<boolean>;
  /** Per action, the org's invocations created in the window by outcome, ordered by action name. */
  runSummaries(orgId: string, window: TimeWindow, limit?: number): Promise<RunSummary[]>;
  search(orgId: string, plan: SearchPlan): Promise<SearchPage<InvocationRecord>>;
  /** How many of the org's invocations are in each status (statuses without any are absent). */
  countByStatus(orgId: string): Promise<Map<number, number>>;
  /** How many invocations of every org wait for a runner (Queued). */
  countQueued(): Promise<number>;
  /** The median run time in seconds of the org's invocations completed since `since` (null when none did). */
  medianCompletedSeconds(orgId: string, since: Date): Promise<number | null>;
  /** The status histories and vCPUs of the org's invocations alive at some point in the window and matching `where`. */
  activitySources(orgId: string, window: TimeWindow, where: SqlFragment): Promise<ActivitySource[]>;
  /** The org's invocations in `spec.statuses` matching `where`, grouped, largest groups first; `total` counts the groups. */
  groups(orgId: string, spec: GroupSpec, where: SqlFragment): Promise<{ groups: InvocationGroup[]; total: number }>;
}

/** What a runner may claim: invocations its executors can run, in orgs with room under their concurrency limit. */
export interface ClaimFilter {
  executors: Executor[];
  orgId?: string | undefined;
  concurrencyLimit: number;
  now: Date;
}

/** One log line a runner sends. */
export interface LogLine {
  process: string;
  log: string;
  timestamp: Date;
}

/** The invocation rows of the runner protocol: claims, leases, logs and what the sweeper looks at. */
export interface LeaseRepository {
  /** Locks the oldest claimable invocation (inside a transaction); claims never race past an org's limit. */
  lockNextClaimable(filter: ClaimFilter): Promise<InvocationRecord | null>;
  /** Locks an invocation (inside a transaction) by its id, or by its current lease. */
  lock(by: { invocationId: string } | { leaseId: string }): Promise<InvocationRecord | null>;
  findByLease(leaseId: string): Promise<InvocationRecord | null>;
  /** Writes the lifecycle fields of an invocation the caller holds locked (see InvocationRepository.update). */
  update(record: InvocationRecord): Promise<void>;
  appendLogs(invocationId: string, lines: LogLine[]): Promise<void>;
  /** Unfinished invocations the sweeper should look at, oldest first (a shortlist: each is decided again under its lock). */
  sweepCandidates(now: Date, silentSince: Date, limit: number): Promise<string[]>;
}

/** Whose evaluations a listing shows: one trigger's, or those made for one dataset of an org. */
export type EvaluationScope = { triggerId: string } | { orgId: string; datasetId: string };

/** Triggers and their evaluations. */
export interface TriggerRepository {
  /** A trigger of the org by name; with `lock`, locked for update (in a transaction). */
  find(orgId: string, name: string, lock?: boolean): Promise<TriggerRecord | null>;
  /** Inserts a trigger; false, writing nothing, when the org already has one of that name. */
  insert(record: TriggerRecord): Promise<boolean>;
  remove(record: TriggerRecord): void;
  /**
   * Takes the org's active-trigger lock for the rest of the transaction (so two enables at once
   * are counted one after the other) and counts the org's enabled triggers that no ingestion rule manages.
   */
  lockActiveCount(orgId: string): Promise<number>;
  /** A page of the org's triggers: v1 ones only (the legacy listings) unless `includeV2`. */
  search(orgId: string, plan: SearchPlan, includeV2?: boolean): Promise<SearchPage<TriggerRecord>>;
  /** The org's triggers that react to `cause`, enabled or not, oldest first (plain records, for reading). */
  reactingTo(orgId: string, cause: string): Promise<TriggerRecord[]>;
  /** A page of evaluations, newest first, whether more follow, and how many the scope holds. */
  evaluations(scope: EvaluationScope, page: Pick<KeysetPage, "limit" | "before">): Promise<{ rows: TriggerEvaluationRecord[]; hasMore: boolean; total: number }>;
  /**
   * Records a pending evaluation of a trigger for an occasion and returns its id: a pending or
   * failed earlier attempt is reset and reused; an evaluated one (or a deleted trigger) gives undefined.
   */
  beginEvaluation(triggerId: string, occasion: EvaluationOccasion): Promise<string | undefined>;
  finishEvaluation(triggerEvaluationId: string, outcome: EvaluationOutcome): Promise<void>;
  failEvaluation(triggerEvaluationId: string, detail: string): Promise<void>;
}

/** How a claimed dispatch ended. */
export interface DispatchOutcome {
  dispatchId: string;
  status: "dispatched" | "failed";
  detail: string | null;
  resultRef: string | null;
}

/**
 * A dispatch to record: a TriggerDispatchRecord before it has an id, and for an event's dispatch the
 * namespace records its targets render from (kept so that a retry after a crash renders the same).
 */
export type NewDispatch = Omit<TriggerDispatchRecord, "dispatchId"> & { namespace?: TriggerNamespace | null };

/** A claimed dispatch taken over from a crashed replica, with the namespace records it was claimed with (null for a schedule tick). */
export interface StaleDispatch {
  dispatch: TriggerDispatchRecord;
  namespace: TriggerNamespace | null;
}

/** The 0.62 trigger model's reads and writes: triggers by id, dispatches, the schedule queue. */
export interface TriggerModelRepository {
  /** A trigger of the org by id; with `lock`, locked for update (in a transaction). */
  findById(orgId: string, triggerId: string, lock?: boolean): Promise<TriggerRecord | null>;
  /** The org's enabled v2 triggers subscribed to an event type, oldest first (plain records, for reading). */
  subscribedTo(orgId: string, eventType: string): Promise<TriggerRecord[]>;
  /** Records dispatches as `claimed`; returns those inserted (a slot already taken is skipped). */
  claim(rows: NewDispatch[]): Promise<TriggerDispatchRecord[]>;
  /** Moves claimed dispatches to `dispatched` or `failed` (one statement for many: a scheduler tick finishes thousands). */
  finish(outcomes: DispatchOutcome[]): Promise<void>;
  /** The dispatches of a trigger's slots for one idempotency token. */
  slots(triggerId: string, token: string): Promise<TriggerDispatchRecord[]>;
  /** A page of a trigger's dispatches, newest first. */
  dispatches(triggerId: string, page: Pick<KeysetPage, "limit" | "before">): Promise<{ rows: TriggerDispatchRecord[]; hasMore: boolean; total: number }>;
  /** Up to `limit` triggers due at `now`, locked (SKIP LOCKED: another replica takes the others). */
  lockDue(now: Date, limit: number): Promise<TriggerRecord[]>;
  /** Sets triggers' next due ticks (null: none). */
  setNextFire(updates: { triggerId: string; nextFireAt: Date | null }[]): Promise<void>;
  /**
   * Re-claims up to `limit` dispatches still `claimed` since before `staleBefore` (their replica died
   * between claim and run), stamping them claimed at `now` (SKIP LOCKED: one replica takes each).
   */
  reclaimStale(staleBefore: Date, now: Date, limit: number): Promise<StaleDispatch[]>;
  /** Triggers by id (any org), for dispatches taken over from another replica. */
  byIds(triggerIds: readonly string[]): Promise<TriggerRecord[]>;
}
