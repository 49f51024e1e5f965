import type { JsonObject } from "@bufbuild/protobuf";
import { applyCustomFieldChanges, invalidArgument, newId, notFound, parseQueryText, type CustomFieldChanges, type MetadataChanges, type UnitOfWork } from "@hangar/shared";
import type { Actor, OrgActor } from "./actor";
import { applyMetadataChangeset, checkTags } from "./datasets";
import type { DeviceRecord, ListedPage, ListedRange } from "./devices";
import type { DataRepositories } from "./repositories";
import { settleIngestion } from "./session-ingestion";
import { whereOfSessions } from "./session-search";
import { completeSession, touchSession, type SessionRecord, type SessionScope } from "./sessions";

/** What the session use cases reach. */
export type SessionRepositories = Pick<DataRepositories, "sessions" | "devices" | "datasets" | "files">;

/** The fields of a new session as a request gives them. */
export interface NewSession {
  name?: string | undefined;
  description?: string | undefined;
  metadata?: JsonObject | undefined;
  customFields?: JsonObject | undefined;
  tags: readonly string[];
  /** Devices of the org, by `device_id` or `universal_device_id`. */
  deviceIds: readonly string[];
  /** The completion policy's minutes; null (or absent) for completion by request only. */
  inactivityMinutes?: number | null | undefined;
  /** Prefixes field names in errors (`create_request.` inside create-if-not-exists). */
  fieldPrefix?: string;
}

/** The changes of an update: an absent field stays, null clears (for the policy: completion by request only). */
export interface SessionUpdate {
  name?: string | null | undefined;
  description?: string | null | undefined;
  metadataChangeset?: MetadataChanges | undefined;
  customFieldsChangeset?: CustomFieldChanges | undefined;
  inactivityMinutes?: number | null | undefined;
}

/** Creates a session in the actor's org with its devices; an unknown device is a 404 and creates nothing. */
export function createSession(uow: UnitOfWork<SessionRepositories>, actor: OrgActor, input: NewSession): Promise<SessionRecord> {
  const record = newSession(actor, input);
  return uow.transaction(async (r) => {
    const devices = await devicesOf(r, actor.orgId, input.deviceIds, (i) => `${input.fieldPrefix ?? ""}device_ids[${i}]`);
    r.sessions.add(record);
    await r.sessions.addDevices(record.sessionId, devices.map((d) => d.universalDeviceId));
    return record;
  });
}

/**
 * Returns the oldest session of the org matching a text query (the query language's fields over
 * sessions: name, tags, metadata, ...), or creates one as `input` says. Creations matching the
 * same query are serialised, so two concurrent calls make one session.
 */
export async function createSessionIfNotExists(
  uow: UnitOfWork<SessionRepositories>,
  actor: OrgActor,
  query: { text: string; field: string },
  input: NewSession,
): Promise<SessionRecord> {
  const condition = parseQueryText(query.text, query.field);
  const where = whereOfSessions(condition, query.field);
  const candidate = newSession(actor, input);
  return uow.transaction(async (r) => {
    await r.sessions.lockQuery(actor.orgId, JSON.stringify(condition));
    const existing = await r.sessions.firstMatch(actor.orgId, where);
    if (existing) return existing;
    const devices = await devicesOf(r, actor.orgId, input.deviceIds, (i) => `${input.fieldPrefix ?? ""}device_ids[${i}]`);
    r.sessions.add(candidate);
    await r.sessions.addDevices(candidate.sessionId, devices.map((d) => d.universalDeviceId));
    return candidate;
  });
}

/** A session the actor can read; a 404 otherwise. */
export function getSession(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string): Promise<SessionRecord> {
  return findSession(uow.repositories(), actor, sessionId);
}

/** Sessions of the actor's org by id, in the order asked; others are left out. */
export async function sessionsByIds(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionIds: readonly string[]): Promise<SessionRecord[]> {
  if (!actor.orgId) return [];
  const found = new Map((await uow.repositories().sessions.findMany(actor.orgId, sessionIds)).map((s) => [s.sessionId, s]));
  return sessionIds.flatMap((id) => found.get(id) ?? []);
}

/** Applies an update, the session locked so concurrent changesets cannot each apply to the same read. */
export function updateSession(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string, change: SessionUpdate): Promise<SessionRecord> {
  return uow.transaction(async (r) => {
    const record = await findSession(r, actor, sessionId, true);
    if (change.name !== undefined) record.name = change.name === null ? null : checkName(change.name, "name");
    if (change.description !== undefined) record.description = change.description;
    if (change.metadataChangeset) applyMetadataChangeset(record, change.metadataChangeset);
    if (change.customFieldsChangeset) record.customFields = applyCustomFieldChanges(record.customFields, change.customFieldsChangeset, "custom_fields_changeset");
    const now = new Date();
    if (change.inactivityMinutes !== undefined) {
      // A new policy counts from now: the change is activity.
      record.inactivityMinutes = change.inactivityMinutes;
      touchSession(record, actor.subject, now);
    }
    record.modified = now;
    record.modifiedBy = actor.subject;
    return record;
  });
}

/** Deletes a session with its links to devices and files (they stay). */
export function deleteSession(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string): Promise<void> {
  return uow.transaction(async (r) => r.sessions.remove(await findSession(r, actor, sessionId, true)));
}

/** Completes a session now, as the actor (settling its ingestion, see settleIngestion); completing a complete session changes nothing. */
export function completeSessionNow(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string): Promise<SessionRecord> {
  return uow.transaction(async (r) => {
    const record = await findSession(r, actor, sessionId, true);
    const now = new Date();
    completeSession(record, actor.subject, now);
    await settleIngestion(r.sessions, record, now);
    return record;
  });
}

/** Who completes sessions by inactivity, as their `completed_by` shows. */
export const INACTIVITY_COMPLETER = "system:inactivity";

/**
 * Completes up to `limit` in-progress sessions whose `completes_at` is at or before `now`, in one
 * transaction (replicas skip each other's rows). Returns how many it completed.
 */
export function completeDueSessions(uow: UnitOfWork<SessionRepositories>, now: Date, limit: number): Promise<number> {
  return uow.transaction(async (r) => {
    const due = await r.sessions.due(now, limit);
    for (const record of due) {
      completeSession(record, INACTIVITY_COMPLETER, now);
      await settleIngestion(r.sessions, record, now);
    }
    return due.length;
  });
}

/** Which sessions a listing reads, as the caller names them: the org's, a device's or a dataset's. */
export type SessionListing = { orgId: string } | { deviceId: string } | { datasetId: string };

/**
 * One page of sessions, newest first: the actor's org's, a device's (by `device_id`) or those
 * holding a file of a dataset. An unknown device or dataset is a 404.
 */
export async function listSessions(uow: UnitOfWork<SessionRepositories>, actor: Actor, listing: SessionListing, range: ListedRange): Promise<ListedPage<SessionRecord>> {
  const r = uow.repositories();
  return r.sessions.list(await scopeOf(r, actor, listing), range);
}

/** Links a device of the session's org to the session (again: no change). */
export function addSessionDevice(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string, deviceId: string): Promise<void> {
  return uow.transaction(async (r) => {
    const session = await findSession(r, actor, sessionId, true);
    const [device] = await devicesOf(r, session.orgId, [deviceId], () => "device_id");
    await r.sessions.addDevices(session.sessionId, [device!.universalDeviceId]);
  });
}

/** Unlinks a device from the session; a device of the org it lacks changes nothing, an unknown device is a 404. */
export function removeSessionDevice(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string, deviceId: string): Promise<void> {
  return uow.transaction(async (r) => {
    const session = await findSession(r, actor, sessionId, true);
    const [device] = await devicesOf(r, session.orgId, [deviceId], () => "device_id");
    await r.sessions.removeDevice(session.sessionId, device!.universalDeviceId);
  });
}

/** One page of a session's devices' `device_id`s. */
export async function listSessionDevices(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string, range: ListedRange): Promise<ListedPage<string>> {
  const r = uow.repositories();
  const session = await findSession(r, actor, sessionId);
  return r.sessions.listDevices(session.sessionId, range);
}

/** A session the actor can read (locked for update when asked); a 404 otherwise. */
export async function findSession(r: Pick<SessionRepositories, "sessions">, actor: Actor, sessionId: string, lock = false): Promise<SessionRecord> {
  const record = actor.orgId ? await r.sessions.find(actor.orgId, sessionId, lock) : null;
  if (!record) throw notFound("session", sessionId);
  return record;
}

/** A new in-progress session of the actor's org as `input` describes it (checked; errors name the request's fields). */
export function newSession(actor: OrgActor, input: NewSession): SessionRecord {
  const prefix = input.fieldPrefix ?? "";
  const now = new Date();
  const record: SessionRecord = {
    sessionId: newId("se"),
    orgId: actor.orgId,
    name: checkName(input.name, `${prefix}name`),
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    customFields: input.customFields ?? {},
    tags: checkTags(input.tags, `${prefix}tags`),
    status: "in_progress",
    inactivityMinutes: input.inactivityMinutes ?? null,
    completesAt: null,
    completedAt: null,
    completedBy: null,
    ingestedAt: null,
    ingestionCount: 0,
    minTimestampNs: null,
    maxTimestampNs: null,
    created: now,
    createdBy: actor.subject,
    modified: now,
    modifiedBy: actor.subject,
  };
  touchSession(record, actor.subject, now);
  return record;
}

/**
 * The org's devices named by `device_id` or `universal_device_id`, in order (each once); an
 * unknown one is a 404. `fieldOf` names the i-th id's field in errors.
 */
export async function devicesOf(
  r: Pick<SessionRepositories, "devices">,
  orgId: string,
  ids: readonly string[],
  fieldOf: (i: number) => string = (i) => `device_ids[${i}]`,
): Promise<DeviceRecord[]> {
  const found = new Map<string, DeviceRecord>();
  for (const [i, id] of ids.entries()) {
    if (id.length === 0) throw invalidArgument(fieldOf(i), "must not be empty");
    const device = await r.devices.findByEitherId(orgId, id);
    if (!device) throw notFound("device", id);
    found.set(device.universalDeviceId, device);
  }
  return [...found.values()];
}

function checkName(name: string | undefined, field: string): string | null {
  if (name === undefined) return null;
  if (name.trim().length === 0) throw invalidArgument(field, "must not be blank");
  return name;
}

async function scopeOf(r: SessionRepositories, actor: Actor, listing: SessionListing): Promise<SessionScope> {
  if ("orgId" in listing) return listing;
  if ("deviceId" in listing) {
    const device = actor.orgId ? await r.devices.find(actor.orgId, listing.deviceId) : null;
    if (!device) throw notFound("device", listing.deviceId);
    return { universalDeviceId: device.universalDeviceId };
  }
  const dataset = actor.orgId ? await r.datasets.read(actor.orgId, listing.datasetId) : null;
  if (!dataset) throw notFound("dataset", listing.datasetId);
  return { datasetId: dataset.datasetId };
}
