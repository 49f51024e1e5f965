import type { ServiceImpl } from "@connectrpc/connect";
import { batchErrorOf, callerOf, nullableString, planKeysetPage, type UnitOfWork } from "@hangar/shared";
import { SessionFileViewSchema, SessionSchema, SessionTopicSchema, type CreateSessionRequest, type DataService } from "@hangar/shared/proto/data";
import { setSessionUnixOffset } from "../domain/session-anchors";
import { getSessionTopic, listSessionTopics } from "../domain/session-topics";
import type { Outcome } from "../domain/session-file-use-cases";
import {
  addSessionFiles,
  createDeviceSessions,
  getSessionIngestion,
  listSessionFiles,
  removeSessionFiles,
  sessionIngestionSummaries,
  countCompleteSessions,
  skipWaitingForFiles,
} from "../domain/session-file-use-cases";
import {
  addSessionDevice,
  completeSessionNow,
  createSession,
  createSessionIfNotExists,
  deleteSession,
  getSession,
  listSessionDevices,
  listSessions,
  removeSessionDevice,
  updateSession,
  type NewSession,
  type SessionRepositories,
} from "../domain/session-use-cases";
import { readerOf, serviceCaller, writerOf } from "./actors";
import { timeInputOf } from "./mappers";
import { pageToProto } from "./device-mappers";
import { completionPolicyOf, ingestionToProto, sessionFileInputOf, sessionFileToProto, sessionToProto, sessionTopicToProto, summaryToProto } from "./session-mappers";

type SessionHandlers = Pick<
  ServiceImpl<typeof DataService>,
  | "listSessions"
  | "createSession"
  | "createSessionIfNotExists"
  | "sessionIngestionSummaries"
  | "countCompleteSessions"
  | "getSession"
  | "updateSession"
  | "deleteSession"
  | "completeSession"
  | "listSessionDevices"
  | "addSessionDevice"
  | "removeSessionDevice"
  | "listSessionFiles"
  | "addSessionFiles"
  | "removeSessionFiles"
  | "getSessionIngestion"
  | "skipWaitingForFiles"
  | "setSessionUnixOffset"
  | "clearSessionUnixOffset"
  | "createDeviceSessions"
  | "listDeviceSessions"
  | "listDatasetSessions"
  | "listSessionTopics"
  | "getSessionTopic"
>;

/**
 * The session operations (rules in domain/session-use-cases and session-file-use-cases). Any
 * member of the session's org reads and edits it; another org's session is a 404 and its
 * listings are empty. Batch replies carry one element per request entry, in request order.
 */
export function createSessionHandlers({ uow }: { uow: UnitOfWork<SessionRepositories> }): SessionHandlers {
  const page = (req: { pageSize?: bigint | undefined; pageToken?: string | undefined }, scope: string) => planKeysetPage(req.pageSize, req.pageToken, scope);
  return {
    async listSessions(req, ctx) {
      const actor = writerOf(callerOf(ctx));
      const range = page(req, `sessions:${actor.orgId}`);
      return pageToProto(await listSessions(uow, actor, { orgId: actor.orgId }, range), range, SessionSchema, sessionToProto);
    },

    async createSession(req, ctx) {
      return { session: sessionToProto(await createSession(uow, writerOf(callerOf(ctx)), newSessionOf(req, ""))) };
    },

    async createSessionIfNotExists(req, ctx) {
      const input = newSessionOf(req.createRequest!, "create_request.");
      const record = await createSessionIfNotExists(uow, writerOf(callerOf(ctx)), { text: req.matchRoboqlQuery, field: "match_roboql_query" }, input);
      return { session: sessionToProto(record) };
    },

    async countCompleteSessions(req, ctx) {
      return { count: BigInt(await countCompleteSessions(uow, readerOf(serviceCaller(callerOf(ctx))), req.fileIds)) };
    },

    async sessionIngestionSummaries(req, ctx) {
      return { summaries: (await sessionIngestionSummaries(uow, readerOf(callerOf(ctx)), req.sessionIds)).map(summaryToProto) };
    },

    async getSession(req, ctx) {
      return { session: sessionToProto(await getSession(uow, readerOf(callerOf(ctx)), req.sessionId)) };
    },

    async updateSession(req, ctx) {
      const record = await updateSession(uow, readerOf(callerOf(ctx)), req.sessionId, {
        name: nullableString(req.name, "name"),
        description: nullableString(req.description, "description"),
        metadataChangeset: req.metadataChangeset,
        customFieldsChangeset: req.customFieldsChangeset,
        inactivityMinutes: completionPolicyOf(req.completionPolicy, "completion_policy"),
      });
      return { session: sessionToProto(record) };
    },

    async deleteSession(req, ctx) {
      await deleteSession(uow, readerOf(callerOf(ctx)), req.sessionId);
      return {};
    },

    async completeSession(req, ctx) {
      return { session: sessionToProto(await completeSessionNow(uow, readerOf(callerOf(ctx)), req.sessionId)) };
    },

    async listSessionDevices(req, ctx) {
      const range = page(req, `session-devices:${req.sessionId}`);
      const listed = await listSessionDevices(uow, readerOf(callerOf(ctx)), req.sessionId, range);
      const nextToken = range.nextToken(listed.keys.at(-1), listed.hasMore);
      return { items: listed.rows, totalCount: BigInt(listed.total), ...(nextToken ? { nextToken } : {}) };
    },

    async addSessionDevice(req, ctx) {
      await addSessionDevice(uow, readerOf(callerOf(ctx)), req.sessionId, req.deviceId);
      return {};
    },

    async removeSessionDevice(req, ctx) {
      await removeSessionDevice(uow, readerOf(callerOf(ctx)), req.sessionId, req.deviceId);
      return {};
    },

    async listSessionFiles(req, ctx) {
      const range = page(req, `session-files:${req.sessionId}`);
      return pageToProto(await listSessionFiles(uow, readerOf(callerOf(ctx)), req.sessionId, range), range, SessionFileViewSchema, sessionFileToProto);
    },

    async addSessionFiles(req, ctx) {
      const { session, results } = await addSessionFiles(uow, readerOf(callerOf(ctx)), req.sessionId, req.files.map(sessionFileInputOf));
      return { responses: results.map((r) => batchElement(r, sessionFileToProto)), session: sessionToProto(session) };
    },

    async removeSessionFiles(req, ctx) {
      const { session, results } = await removeSessionFiles(uow, readerOf(callerOf(ctx)), req.sessionId, req.fileIds);
      return { responses: results.map((r) => batchElement(r, (id) => id)), session: sessionToProto(session) };
    },

    async getSessionIngestion(req, ctx) {
      return { ingestion: ingestionToProto(await getSessionIngestion(uow, readerOf(callerOf(ctx)), req.sessionId)) };
    },

    async skipWaitingForFiles(req, ctx) {
      const { ingestion, notInSession } = await skipWaitingForFiles(uow, readerOf(callerOf(ctx)), req.sessionId, req.fileIds);
      return { ingestion: ingestionToProto(ingestion), notInSession };
    },

    async setSessionUnixOffset(req, ctx) {
      return { session: sessionToProto(await setSessionUnixOffset(uow, readerOf(callerOf(ctx)), req.sessionId, req.unixEpochOffsetNs)) };
    },

    async clearSessionUnixOffset(req, ctx) {
      return { session: sessionToProto(await setSessionUnixOffset(uow, readerOf(callerOf(ctx)), req.sessionId, null)) };
    },

    async createDeviceSessions(req, ctx) {
      const declarations = req.sessions.map((s, i) => ({
        ...newSessionOf({ ...s, deviceIds: [] }, `sessions[${i}].`),
        name: s.name,
        anchorNs: timeInputOf(s.anchorNs),
        files: s.files.map(sessionFileInputOf),
      }));
      const outcomes = await createDeviceSessions(uow, readerOf(callerOf(ctx)), req.deviceId, declarations);
      return { responses: outcomes.map((o) => batchElement(o, sessionToProto)) };
    },

    async listDeviceSessions(req, ctx) {
      const range = page(req, `device-sessions:${req.deviceId}`);
      return pageToProto(await listSessions(uow, readerOf(callerOf(ctx)), { deviceId: req.deviceId }, range), range, SessionSchema, sessionToProto);
    },

    async listDatasetSessions(req, ctx) {
      const range = page(req, `dataset-sessions:${req.datasetId}`);
      return pageToProto(await listSessions(uow, readerOf(callerOf(ctx)), { datasetId: req.datasetId }, range), range, SessionSchema, sessionToProto);
    },

    async listSessionTopics(req, ctx) {
      const range = page(req, `session-topics:${req.sessionId}`);
      return pageToProto(await listSessionTopics(uow, readerOf(callerOf(ctx)), req.sessionId, range), range, SessionTopicSchema, sessionTopicToProto);
    },

    async getSessionTopic(req, ctx) {
      return { topic: sessionTopicToProto(await getSessionTopic(uow, readerOf(callerOf(ctx)), req.sessionId, req.urlQuotedTopicName)) };
    },
  };
}

/** A batch element: `data` when done, the error envelope when refused. */
function batchElement<T, W>(outcome: Outcome<T>, map: (value: T) => W): { data: W } | { error: ReturnType<typeof batchErrorOf> } {
  return "ok" in outcome ? { data: map(outcome.ok) } : { error: batchErrorOf(outcome.error) };
}

/** The domain's new session from a create request (or a declaration); `prefix` names nested fields in errors. */
function newSessionOf(req: Omit<CreateSessionRequest, "$typeName" | "$unknown">, prefix: string): NewSession {
  return {
    name: req.name,
    description: req.description,
    metadata: req.metadata,
    customFields: req.customFields,
    tags: req.tags,
    deviceIds: req.deviceIds,
    inactivityMinutes: completionPolicyOf(req.completionPolicy, `${prefix}completion_policy`),
    fieldPrefix: prefix,
  };
}
