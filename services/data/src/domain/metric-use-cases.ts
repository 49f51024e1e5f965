import { badRequest, conflict, invalidArgument, newId, notFound, quoteValue, type PageCursor, type QueryNode, type UnitOfWork } from "@hangar/shared";
import type { Actor, OrgActor } from "./actor";
import type { ListedPage } from "./devices";
import type { MetricGroupBy } from "./metric-conditions";
import {
  checkMetricName,
  metricNameProblem,
  type Bucketing,
  type GroupSummary,
  type IdFilter,
  type MetricAggregateRecord,
  type MetricDefinitionRecord,
  type MetricRepository,
  type MetricTimeFilter,
  type MetricValuePage,
  type MetricValueRecord,
  type NumericAggregation,
  type ValueOrder,
} from "./metrics";

/** What the metric use cases reach. */
export type MetricRepositories = { metrics: MetricRepository };

/**
 * A publish request as rpc/ read it: `deviceId` undefined means "the session's only device";
 * `invocationId` is the invocation the caller's token runs as (null for any other token), never a
 * value the client sent.
 */
export interface PublishRequest {
  sessionId: string;
  deviceId: string | null | undefined;
  invocationId: string | null;
  entries: readonly { name: string; value: number | undefined }[];
}

/** The outcome of one entry of a publish, in request order. */
export type PublishOutcome = { name: string; value: MetricValueRecord } | { name: string; error: string };

/** A value query or aggregation as rpc/ read it (choices and limits already checked); an aggregation names one metric. */
export interface ValueQuery {
  names: readonly string[];
  timeFilter: MetricTimeFilter;
  window: { startNs: bigint; endNs: bigint } | undefined;
  deviceIds: IdFilter;
  sessionIds: IdFilter;
  invocationIds: IdFilter;
  condition: QueryNode | undefined;
  groupBy: MetricGroupBy | undefined;
}

/** What a definition says besides its name: null clears a field; undefined (on update) keeps it. */
export interface MetricDetails<Absent = never> {
  description: string | null | Absent;
  unit: string | null | Absent;
}

/** Defines a metric in the actor's org: a 400 for a bad name, a 409 when the name is taken. */
export async function createMetric(uow: UnitOfWork<MetricRepositories>, actor: OrgActor, name: string, details: MetricDetails): Promise<MetricDefinitionRecord> {
  const now = new Date();
  const record: MetricDefinitionRecord = {
    metricId: newId("mt"),
    orgId: actor.orgId,
    name: checkMetricName(name),
    description: details.description,
    unit: details.unit,
    created: now,
    createdBy: actor.subject,
    modified: now,
    modifiedBy: actor.subject,
  };
  if (!(await uow.repositories().metrics.addDefinition(record))) throw conflict(`a metric named ${quoteValue(name)} already exists`);
  return record;
}

/** The actor's org's definition of that name; a 404 otherwise (also for another org's). */
export async function getMetric(uow: UnitOfWork<MetricRepositories>, actor: Actor, name: string): Promise<MetricDefinitionRecord> {
  return definitionOf(uow.repositories().metrics, actor, name);
}

/** Changes a definition's description and unit (undefined: unchanged, null: cleared). */
export function updateMetric(uow: UnitOfWork<MetricRepositories>, actor: Actor, name: string, changes: MetricDetails<undefined>): Promise<MetricDefinitionRecord> {
  return uow.transaction(async (r) => {
    const record = await definitionOf(r.metrics, actor, name, true);
    if (changes.description !== undefined) record.description = changes.description;
    if (changes.unit !== undefined) record.unit = changes.unit;
    record.modified = new Date();
    record.modifiedBy = actor.subject;
    await r.metrics.saveDefinition(record);
    return record;
  });
}

/** Deletes a definition and every value published under it. */
export async function deleteMetric(uow: UnitOfWork<MetricRepositories>, actor: Actor, name: string): Promise<void> {
  await uow.transaction(async (r) => r.metrics.removeDefinition(await definitionOf(r.metrics, actor, name, true)));
}

/** A page of the actor's org's definitions, newest first; another org's caller finds none. */
export function listMetrics(uow: UnitOfWork<MetricRepositories>, actor: Actor, range: { limit: number; cursor: number | undefined }): Promise<ListedPage<MetricDefinitionRecord>> {
  if (!actor.orgId) return Promise.resolve({ rows: [], keys: [], hasMore: false, total: 0 });
  return uow.repositories().metrics.listDefinitions(actor.orgId, range);
}

/**
 * Records values for a session of the actor's org (a 404 otherwise), replacing each metric's
 * earlier value for it; unknown names get a definition. A refused entry (bad name, no value) is
 * reported and does not stop the others. A name given more than once stores the last accepted
 * value given for it, and every accepted entry of that name reports it (SDK 0.62's rule). The
 * device is the request's, or the session's only one when the request names none (a 400 when it
 * has none or several).
 */
export async function publishMetrics(uow: UnitOfWork<MetricRepositories>, actor: OrgActor, req: PublishRequest): Promise<PublishOutcome[]> {
  if (req.entries.length === 0) throw invalidArgument("metrics", "must hold at least one entry");
  const repository = uow.repositories().metrics;
  const deviceId = await resolveDevice(repository, actor.orgId, req);
  const problems = req.entries.map(entryProblem);
  // Later entries of a name overwrite earlier ones: the map holds each name's last accepted value.
  const lastValues = new Map(req.entries.flatMap((e, i) => (problems[i] === undefined ? [[e.name, e.value!] as const] : [])));
  const stored = lastValues.size === 0 ? [] : await uow.transaction(async (r) => {
    const now = new Date();
    const definitions = await r.metrics.ensureDefinitions(actor.orgId, [...lastValues.keys()], { description: null, unit: null, created: now, createdBy: actor.subject, modified: now, modifiedBy: actor.subject });
    const context = { orgId: actor.orgId, sessionId: req.sessionId, deviceId, invocationId: req.invocationId, publishedBy: actor.subject, published: now };
    return r.metrics.publish(context, [...lastValues].map(([name, value]) => ({ metricId: definitions.get(name)!.metricId, value })));
  });
  const byName = new Map(stored.map((value) => [value.name, value]));
  return req.entries.map((entry, i) => {
    const problem = problems[i];
    return problem === undefined ? { name: entry.name, value: byName.get(entry.name)! } : { name: entry.name, error: problem };
  });
}

/** One bucket per period of the window (and group, under `groupBy`) that holds values, oldest first. */
export async function aggregateMetrics(
  uow: UnitOfWork<MetricRepositories>,
  actor: Actor,
  query: ValueQuery,
  bucketing: Bucketing,
  aggregation: NumericAggregation,
): Promise<{ definition: MetricDefinitionRecord; records: MetricAggregateRecord[]; groups: GroupSummary }> {
  const repository = uow.repositories().metrics;
  const [definition] = await definitionsOf(repository, actor, query.names);
  return { definition: definition!, ...(await repository.aggregate({ ...query, metricIds: [definition!.metricId] }, bucketing, aggregation)) };
}

/** A page of the selected values of the named metrics (a 404 when the org lacks one), in `order`. */
export async function queryMetricValues(uow: UnitOfWork<MetricRepositories>, actor: Actor, query: ValueQuery, order: ValueOrder, range: { limit: number; cursor: PageCursor | undefined }): Promise<MetricValuePage> {
  const repository = uow.repositories().metrics;
  const definitions = await definitionsOf(repository, actor, query.names);
  return repository.queryValues({ ...query, metricIds: definitions.map((d) => d.metricId) }, order, range);
}

/** Every value published to a session of the actor's org (a 404 otherwise), by metric name. */
export async function listSessionMetrics(uow: UnitOfWork<MetricRepositories>, actor: Actor, sessionId: string, limit: number): Promise<MetricValueRecord[]> {
  const repository = uow.repositories().metrics;
  if (!actor.orgId || (await repository.sessionDevices(actor.orgId, sessionId)) === null) throw notFound("session", sessionId);
  return repository.sessionValues(actor.orgId, sessionId, limit);
}

async function definitionOf(repository: MetricRepository, actor: Actor, name: string, lock = false): Promise<MetricDefinitionRecord> {
  const record = actor.orgId ? await repository.findDefinition(actor.orgId, name, lock) : null;
  if (!record) throw notFound("metric", name);
  return record;
}

/** The actor's org's definitions of `names`, in their order; a 404 naming the first it lacks. */
async function definitionsOf(repository: MetricRepository, actor: Actor, names: readonly string[]): Promise<MetricDefinitionRecord[]> {
  const found = actor.orgId ? await repository.findDefinitions(actor.orgId, names) : [];
  const byName = new Map(found.map((d) => [d.name, d]));
  return names.map((name) => {
    const definition = byName.get(name);
    if (!definition) throw notFound("metric", name);
    return definition;
  });
}

async function resolveDevice(repository: MetricRepository, orgId: string, req: PublishRequest): Promise<string | null> {
  const devices = await repository.sessionDevices(orgId, req.sessionId);
  if (devices === null) throw notFound("session", req.sessionId);
  if (req.deviceId === undefined) {
    if (devices.length === 1) return devices[0]!;
    throw badRequest(`device_id: is required, the session has ${devices.length === 0 ? "no device" : "several devices"} (null publishes without a device)`);
  }
  if (req.deviceId !== null && !(await repository.deviceExists(orgId, req.deviceId))) throw notFound("device", req.deviceId);
  return req.deviceId;
}

function entryProblem(entry: { name: string; value: number | undefined }): string | undefined {
  const problem = metricNameProblem(entry.name);
  if (problem) return `name: ${problem}`;
  if (entry.value === undefined) return "value: is required";
  if (!Number.isFinite(entry.value)) return "value: must be a finite number";
  return undefined;
}
