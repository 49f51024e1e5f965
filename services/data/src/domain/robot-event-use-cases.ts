import type { JsonObject } from "@bufbuild/protobuf";
import { applyCustomFieldChanges, invalidArgument, newId, notFound, type CustomFieldChanges, type MetadataChanges, type UnitOfWork } from "@hangar/shared";
import type { Actor, OrgActor } from "./actor";
import { applyMetadataChangeset, checkTags } from "./datasets";
import type { ListedPage, ListedRange } from "./devices";
import type { DataRepositories } from "./repositories";
import { checkTimeRange, type EventAssociation, type EventAssociationType, type EventTargetRepository, type RobotEventRecord, type RobotEventWithAssociations } from "./robot-events";

/** What the event use cases reach. */
export type RobotEventRepositories = Pick<DataRepositories, "robotEvents" | "eventTargets" | "datasets">;

/** The most events one delete_events request deletes (the client SDK's MAX_EVENTS_PER_DELETE_BATCH). */
export const MAX_EVENTS_PER_DELETE = 1000;

/** The fields of a new event as a request gives them (associations already read, see checkEventAssociation). */
export interface NewRobotEvent {
  name: string;
  description?: string | undefined;
  startTime: bigint;
  endTime: bigint;
  associations: readonly EventAssociation[];
  metadata?: JsonObject | undefined;
  customFields?: JsonObject | undefined;
  tags: readonly string[];
  displayColor?: string | undefined;
}

/** The changes of an update: an absent field stays, null clears (description, color). */
export interface RobotEventUpdate {
  name?: string | undefined;
  description?: string | null | undefined;
  startTime?: bigint | undefined;
  endTime?: bigint | undefined;
  metadataChangeset?: MetadataChanges | undefined;
  customFieldsChangeset?: CustomFieldChanges | undefined;
  displayColor?: string | null | undefined;
}

/**
 * Creates an event in the actor's org. It needs at least one association, each an entity of the
 * org (a dataset, an available file, a topic or a message path): an unknown one is a 404 and
 * creates nothing.
 */
export async function createRobotEvent(uow: UnitOfWork<RobotEventRepositories>, actor: OrgActor, input: NewRobotEvent): Promise<RobotEventWithAssociations> {
  if (input.name.trim().length === 0) throw invalidArgument("name", "must not be blank");
  checkTimeRange(input.startTime, input.endTime);
  if (input.associations.length === 0) throw invalidArgument("associations", "at least one association (a dataset, file, topic or message path) is required");
  const associations = distinct(input.associations);
  const now = new Date();
  const event: RobotEventRecord = {
    eventId: newId("ev"),
    orgId: actor.orgId,
    name: input.name,
    description: input.description ?? null,
    startTime: input.startTime,
    endTime: input.endTime,
    metadata: input.metadata ?? {},
    customFields: input.customFields ?? {},
    tags: checkTags(input.tags),
    displayColor: input.displayColor ?? null,
    created: now,
    createdBy: actor.subject,
    modified: now,
    modifiedBy: actor.subject,
  };
  return uow.transaction(async (r) => {
    await requireTargets(r.eventTargets, actor.orgId, associations);
    await r.robotEvents.add(event, associations);
    return { event, associations: await r.robotEvents.associations(event.eventId) };
  });
}

/** An event the actor can read, with its associations; a 404 otherwise. */
export async function getRobotEvent(uow: UnitOfWork<RobotEventRepositories>, actor: Actor, eventId: string): Promise<RobotEventWithAssociations> {
  const r = uow.repositories();
  const event = await findEvent(r, actor, eventId);
  return { event, associations: await r.robotEvents.associations(event.eventId) };
}

/** Applies an update, the event locked so concurrent changesets cannot each apply to the same read. */
export function updateRobotEvent(uow: UnitOfWork<RobotEventRepositories>, actor: Actor, eventId: string, change: RobotEventUpdate): Promise<RobotEventWithAssociations> {
  return uow.transaction(async (r) => {
    const event = await findEvent(r, actor, eventId, true);
    if (change.name !== undefined) {
      if (change.name.trim().length === 0) throw invalidArgument("name", "must not be blank");
      event.name = change.name;
    }
    if (change.description !== undefined) event.description = change.description;
    if (change.startTime !== undefined) event.startTime = change.startTime;
    if (change.endTime !== undefined) event.endTime = change.endTime;
    checkTimeRange(event.startTime, event.endTime);
    if (change.metadataChangeset) applyMetadataChangeset(event, change.metadataChangeset);
    if (change.customFieldsChangeset) event.customFields = applyCustomFieldChanges(event.customFields, change.customFieldsChangeset, "custom_fields_changeset");
    if (change.displayColor !== undefined) event.displayColor = change.displayColor;
    event.modified = new Date();
    event.modifiedBy = actor.subject;
    return { event, associations: await r.robotEvents.associations(event.eventId) };
  });
}

/** Deletes one event; a 404 when the actor's org has none by that id. */
export async function deleteRobotEvent(uow: UnitOfWork<RobotEventRepositories>, actor: Actor, eventId: string): Promise<void> {
  const deleted = actor.orgId ? await uow.repositories().robotEvents.deleteMany(actor.orgId, [eventId]) : 0;
  if (deleted === 0) throw notFound("event", eventId);
}

/**
 * Deletes 1 to 1,000 events in one statement, so all go or none: ids of no event of the actor's
 * org (unknown, already deleted, another org's) are ignored, which makes a repeat harmless.
 */
export async function deleteRobotEvents(uow: UnitOfWork<RobotEventRepositories>, actor: Actor, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) throw invalidArgument("event_ids", "at least one event id is required");
  if (eventIds.length > MAX_EVENTS_PER_DELETE) throw invalidArgument("event_ids", `at most ${MAX_EVENTS_PER_DELETE} per request`);
  eventIds.forEach((id, i) => {
    if (id.length === 0) throw invalidArgument(`event_ids[${i}]`, "must not be empty");
  });
  if (actor.orgId) await uow.repositories().robotEvents.deleteMany(actor.orgId, eventIds);
}

/** One page of the actor's org's events about any of the given entities, newest first. */
export async function listRobotEventsFor(
  uow: UnitOfWork<RobotEventRepositories>,
  actor: Actor,
  associations: readonly EventAssociation[],
  range: ListedRange,
): Promise<ListedPage<RobotEventWithAssociations>> {
  if (associations.length === 0) throw invalidArgument("associations", "at least one association is required");
  if (!actor.orgId) return { rows: [], keys: [], hasMore: false, total: 0 };
  return uow.repositories().robotEvents.list({ orgId: actor.orgId, associations }, range);
}

/** One page of a dataset's events: those about it and about its files, newest first. An unknown dataset is a 404. */
export async function listDatasetRobotEvents(uow: UnitOfWork<RobotEventRepositories>, actor: Actor, datasetId: string, range: ListedRange) {
  const r = uow.repositories();
  const dataset = await readableDataset(r, actor, datasetId);
  return r.robotEvents.list({ orgId: dataset.orgId, datasetId: dataset.datasetId }, range);
}

/** How many events the dataset's listing holds. */
export async function countDatasetRobotEvents(uow: UnitOfWork<RobotEventRepositories>, actor: Actor, datasetId: string): Promise<number> {
  const r = uow.repositories();
  return r.robotEvents.countOfDataset((await readableDataset(r, actor, datasetId)).datasetId);
}

async function findEvent(r: RobotEventRepositories, actor: Actor, eventId: string, lock = false): Promise<RobotEventRecord> {
  const event = actor.orgId ? await r.robotEvents.find(actor.orgId, eventId, lock) : null;
  if (!event) throw notFound("event", eventId);
  return event;
}

async function readableDataset(r: RobotEventRepositories, actor: Actor, datasetId: string) {
  const dataset = actor.orgId ? await r.datasets.read(actor.orgId, datasetId) : null;
  if (!dataset) throw notFound("dataset", datasetId);
  return dataset;
}

const NOUN: Record<EventAssociationType, string> = { dataset: "dataset", file: "file", topic: "topic", message_path: "message path" };

/** Every association must name an entity of the org; the first that does not is a 404 (one query per type). */
async function requireTargets(targets: EventTargetRepository, orgId: string, associations: readonly EventAssociation[]): Promise<void> {
  const lookups: Record<EventAssociationType, (ids: string[]) => Promise<Set<string>>> = {
    dataset: (ids) => targets.datasets(orgId, ids),
    file: (ids) => targets.files(orgId, ids),
    topic: (ids) => targets.topics(orgId, ids),
    message_path: (ids) => targets.messagePaths(orgId, ids),
  };
  for (const type of Object.keys(lookups) as EventAssociationType[]) {
    const ids = associations.filter((a) => a.associationType === type).map((a) => a.associationId);
    if (ids.length === 0) continue;
    const found = await lookups[type](ids);
    const missing = ids.find((id) => !found.has(id));
    if (missing !== undefined) throw notFound(NOUN[type], missing);
  }
}

/** The associations without repeats (the same entity named twice is one association). */
function distinct(associations: readonly EventAssociation[]): EventAssociation[] {
  const seen = new Map<string, EventAssociation>();
  for (const a of associations) {
    const key = `${a.associationType}:${a.associationId}`;
    if (!seen.has(key)) seen.set(key, a);
  }
  return [...seen.values()];
}
