import { Code, ConnectError } from "@connectrpc/connect";
import type { JsonObject } from "@bufbuild/protobuf";
import { invalidArgument, notFound, quoteValue, type UnitOfWork } from "@hangar/shared";
import type { Actor } from "./actor";
import { checkTags } from "./datasets";
import type { ListedPage, ListedRange } from "./devices";
import { ingestionOf, settleIngestion, type SessionIngestion } from "./session-ingestion";
import { checkAnchor, checkFileDeclarations, MAX_FILES_AND_TOPICS_PER_REQUEST, type DeclaredFile, type SessionFileInput } from "./session-files";
import { findSession, newSession, sessionsByIds, type SessionRepositories } from "./session-use-cases";
import { recomputeBounds, touchSession, type SessionFileEntry, type SessionRecord } from "./sessions";
import type { TimeInput } from "./time-values";

/** One element of a batch reply: what was done, or the error that refused it. */
export type Outcome<T> = { ok: T } | { error: ConnectError };

/** The most sessions one create_device_sessions request declares. */
export const MAX_SESSIONS_PER_REQUEST = 100;

/**
 * Adds files to a session (a file already in it gets the new declaration). The request is checked
 * whole first (a 400 names the entry); then each file that is not an available file of the org is
 * refused on its own (404) and the others are linked, in one transaction. Adding files is activity.
 */
export async function addSessionFiles(
  uow: UnitOfWork<SessionRepositories>,
  actor: Actor,
  sessionId: string,
  files: readonly SessionFileInput[],
): Promise<{ session: SessionRecord; results: Outcome<SessionFileEntry>[] }> {
  if (files.length === 0) throw invalidArgument("files", "at least one file is required");
  checkDeclaredCount(files, "files");
  const declared = checkFileDeclarations(files, "files");
  return uow.transaction(async (r) => {
    const session = await findSession(r, actor, sessionId, true);
    const available = await availableFiles(r, session.orgId, declared.map((d) => d.fileId));
    const linked = await link(r, session, declared.filter((d) => available.has(d.fileId)), actor.subject);
    return { session, results: declared.map((d) => outcomeOf(linked.get(d.fileId), () => notFound("file", d.fileId))) };
  });
}

/** Takes files out of a session (the files stay); a file it does not hold is refused on its own (404). */
export async function removeSessionFiles(
  uow: UnitOfWork<SessionRepositories>,
  actor: Actor,
  sessionId: string,
  fileIds: readonly string[],
): Promise<{ session: SessionRecord; results: Outcome<string>[] }> {
  checkFileIds(fileIds, "file_ids");
  return uow.transaction(async (r) => {
    const session = await findSession(r, actor, sessionId, true);
    const removed = new Set(await r.sessions.removeFiles(session.sessionId, fileIds));
    if (removed.size > 0) {
      session.modified = new Date();
      session.modifiedBy = actor.subject;
      await recomputeBounds(r.sessions, session);
    }
    return { session, results: fileIds.map((id) => outcomeOf(removed.has(id) ? id : undefined, () => notInSession(id, session.sessionId))) };
  });
}

/** One page of a session's files, newest first. */
export async function listSessionFiles(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string, range: ListedRange): Promise<ListedPage<SessionFileEntry>> {
  const r = uow.repositories();
  const session = await findSession(r, actor, sessionId);
  return r.sessions.listFiles(session.sessionId, range);
}

/** One session of create_device_sessions as the request declares it. */
export interface SessionDeclaration {
  name: string;
  description?: string | undefined;
  metadata?: JsonObject | undefined;
  customFields?: JsonObject | undefined;
  tags: readonly string[];
  inactivityMinutes?: number | null | undefined;
  /** As the time reader reads it (time-values); absent or null: none. */
  anchorNs?: TimeInput | undefined;
  files: readonly SessionFileInput[];
}

/**
 * Declares sessions of a device (create_device_sessions). A malformed batch is a 400 and an
 * unknown device a 404, before anything is read or written. Then each declaration is decided
 * before any is written: one naming a file that is not an available file of the org is refused
 * (404) and creates no session. The others are written in one transaction: a declaration whose
 * name the device's sessions already carry reuses that session (a resend converges) and adds its
 * files; otherwise a session of the device is created. The device row stays locked meanwhile, so
 * concurrent declarations of one name make one session. Outcomes come in request order.
 */
export async function createDeviceSessions(
  uow: UnitOfWork<SessionRepositories>,
  actor: Actor,
  deviceId: string,
  declarations: readonly SessionDeclaration[],
): Promise<Outcome<SessionRecord>[]> {
  const checked = checkDeclarations(declarations);
  return uow.transaction(async (r) => {
    const device = actor.orgId ? await r.devices.find(actor.orgId, deviceId, true) : null;
    if (!device) throw notFound("device", deviceId);
    const available = await availableFiles(r, device.orgId, checked.flatMap((c) => c.files.map((f) => f.fileId)));
    const refusals = checked.map((c) => c.files.find((f) => !available.has(f.fileId)));
    const outcomes: Outcome<SessionRecord>[] = [];
    for (const [i, declaration] of checked.entries()) {
      const missing = refusals[i];
      if (missing) {
        outcomes.push({ error: notFound("file", missing.fileId) });
        continue;
      }
      const [existing] = await r.sessions.namedOfDevice(device.universalDeviceId, declaration.name);
      const session = existing ?? r.sessions.add(newSession({ orgId: device.orgId, subject: actor.subject }, { ...declaration, deviceIds: [], fieldPrefix: `sessions[${i}].` }));
      if (!existing) await r.sessions.addDevices(session.sessionId, [device.universalDeviceId]);
      await link(r, session, declaration.files, actor.subject);
      outcomes.push({ ok: session });
    }
    return outcomes;
  });
}

/** A session's ingestion status. */
export async function getSessionIngestion(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string): Promise<SessionIngestion> {
  const r = uow.repositories();
  const session = await findSession(r, actor, sessionId);
  return ingestionOf(session, await r.sessions.files(session.sessionId));
}

/**
 * Stops the session waiting for some of its files (1 to 1,000); ids that are not files of the
 * session are returned as such. A complete session with nothing left to await becomes ingested.
 */
export async function skipWaitingForFiles(
  uow: UnitOfWork<SessionRepositories>,
  actor: Actor,
  sessionId: string,
  fileIds: readonly string[],
): Promise<{ ingestion: SessionIngestion; notInSession: string[] }> {
  if (fileIds.length === 0) throw invalidArgument("file_ids", "at least one file id is required");
  return uow.transaction(async (r) => {
    const session = await findSession(r, actor, sessionId, true);
    const now = new Date();
    const skipped = new Set(await r.sessions.skipFiles(session.sessionId, fileIds, actor.subject, now));
    const ingestion = session.status === "complete" ? await settleIngestion(r.sessions, session, now) : ingestionOf(session, await r.sessions.files(session.sessionId));
    return { ingestion, notInSession: [...new Set(fileIds.filter((id) => !skipped.has(id)))] };
  });
}

/** The ingestion statuses of 1 to 100 sessions, in request order; sessions the actor cannot read are left out. */
export async function sessionIngestionSummaries(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionIds: readonly string[]): Promise<SessionIngestion[]> {
  if (sessionIds.length === 0) throw invalidArgument("session_ids", "at least one session id is required");
  const sessions = await sessionsByIds(uow, actor, sessionIds);
  const r = uow.repositories();
  return Promise.all(sessions.map(async (s) => ingestionOf(s, await r.sessions.files(s.sessionId))));
}

/**
 * How many of the actor's org's complete sessions hold any of `fileIds`: the existing-files report of
 * an ingestion rule counts the sessions that ingesting those files will announce as ingested again.
 */
export async function countCompleteSessions(uow: UnitOfWork<SessionRepositories>, actor: Actor, fileIds: readonly string[]): Promise<number> {
  if (!actor.orgId || fileIds.length === 0) return 0;
  return uow.repositories().sessions.countCompleteHolding(actor.orgId, fileIds);
}

/** Links declared files to a session (activity), recomputes its bounds and returns the links by file id. */
async function link(r: SessionRepositories, session: SessionRecord, files: readonly DeclaredFile[], actor: string): Promise<Map<string, SessionFileEntry>> {
  if (files.length === 0) return new Map();
  const now = new Date();
  await r.sessions.putFiles(files.map((f) => ({ ...f, sessionId: session.sessionId, skippedAt: null, skippedBy: null, created: now, createdBy: actor, modified: now, modifiedBy: actor })));
  touchSession(session, actor, now);
  await recomputeBounds(r.sessions, session);
  const entries = await r.sessions.files(session.sessionId, files.map((f) => f.fileId));
  return new Map(entries.map((e) => [e.fileId, e]));
}

/** The ids among `fileIds` of available files of the org (one query). */
async function availableFiles(r: SessionRepositories, orgId: string, fileIds: readonly string[]): Promise<Set<string>> {
  const nodes = await r.files.nodesByIds(orgId, [...new Set(fileIds)]);
  return new Set([...nodes.values()].filter((n) => n.fsType === "file" && n.status === "available").map((n) => n.nodeId));
}

/** Checks a batch of session declarations whole (names, counts, files, anchors); errors name the entry. */
function checkDeclarations(declarations: readonly SessionDeclaration[]): (Omit<SessionDeclaration, "files"> & { files: DeclaredFile[] })[] {
  if (declarations.length === 0) throw invalidArgument("sessions", "at least one session is required");
  if (declarations.length > MAX_SESSIONS_PER_REQUEST) throw invalidArgument("sessions", `at most ${MAX_SESSIONS_PER_REQUEST} sessions per request`);
  checkDeclaredCount(declarations.flatMap((d) => d.files), "sessions");
  const names = new Set<string>();
  return declarations.map((d, i) => {
    const at = `sessions[${i}]`;
    if (d.name.trim().length === 0) throw invalidArgument(`${at}.name`, "is required");
    if (names.has(d.name)) throw invalidArgument(`${at}.name`, `session ${quoteValue(d.name)} is declared more than once in this batch`);
    names.add(d.name);
    checkTags(d.tags, `${at}.tags`);
    const anchor = checkAnchor(d.anchorNs, `${at}.anchor_ns`);
    return { ...d, files: checkFileDeclarations(d.files, `${at}.files`, anchor) };
  });
}

function checkDeclaredCount(files: readonly SessionFileInput[], field: string): void {
  const declared = files.length + files.reduce((n, f) => n + f.topicCount, 0);
  if (declared > MAX_FILES_AND_TOPICS_PER_REQUEST) {
    throw invalidArgument(field, `declares ${declared} files and topics; at most ${MAX_FILES_AND_TOPICS_PER_REQUEST} per request, split them across calls`);
  }
}

function checkFileIds(fileIds: readonly string[], field: string): void {
  if (fileIds.length === 0) throw invalidArgument(field, "at least one file id is required");
  const seen = new Set<string>();
  fileIds.forEach((id, i) => {
    if (seen.has(id)) throw invalidArgument(`${field}[${i}]`, `file ${quoteValue(id)} is named more than once`);
    seen.add(id);
  });
}

function outcomeOf<T>(value: T | undefined, error: () => ConnectError): Outcome<T> {
  return value === undefined ? { error: error() } : { ok: value };
}

function notInSession(fileId: string, sessionId: string): ConnectError {
  return new ConnectError(`file ${quoteValue(fileId)} is not a file of session ${quoteValue(sessionId)}`, Code.NotFound);
}
