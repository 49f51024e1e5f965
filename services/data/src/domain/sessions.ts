import type { JsonObject } from "@bufbuild/protobuf";
import { invalidArgument, type SqlFragment } from "@hangar/shared";
import type { ListedPage, ListedRange } from "./devices";
import type { SessionTopicRow } from "./session-topics";

/** A session's status: `in_progress` until completed by request or by inactivity. */
export type SessionStatus = "in_progress" | "complete";

/** The longest completion policy the client SDK accepts: a week. */
export const MAX_INACTIVITY_MINUTES = 7 * 24 * 60;

/** The largest value of a signed 64-bit integer: the bound of every nanosecond time. */
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * A session. `inactivityMinutes` is its completion policy (null: completed by request only);
 * `completesAt` is when an in-progress session with a policy completes unless activity comes
 * first. `minTimestampNs`/`maxTimestampNs` are the bounds of its files' wall-clock windows.
 */
export interface SessionRecord {
  sessionId: string;
  orgId: string;
  name: string | null;
  description: string | null;
  metadata: JsonObject;
  customFields: JsonObject;
  tags: string[];
  status: SessionStatus;
  inactivityMinutes: number | null;
  completesAt: Date | null;
  completedAt: Date | null;
  completedBy: string | null;
  ingestedAt: Date | null;
  ingestionCount: number;
  minTimestampNs: bigint | null;
  maxTimestampNs: bigint | null;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/**
 * The session's part of one file: a slice of its contents (`dataRange`, `[start, end)`, or the
 * whole file), the anchor that turns file time into Unix time, and a window in file time.
 */
export interface SessionFileLink {
  sessionId: string;
  fileId: string;
  dataRange: [bigint, bigint] | null;
  unixEpochOffsetNs: bigint | null;
  window: [bigint, bigint] | null;
  skippedAt: Date | null;
  skippedBy: string | null;
  created: Date;
  createdBy: string;
  modified: Date;
  modifiedBy: string;
}

/** A session's file with what listings show of the file itself. */
export interface SessionFileEntry extends SessionFileLink {
  datasetId: string | null;
  name: string;
  relativePath: string;
  origination: string;
  size: bigint;
  tags: string[];
  ingestionStatus: string;
  fileCreated: Date;
  fileModified: Date;
}

/** Whose sessions a listing shows. */
export type SessionScope = { orgId: string } | { universalDeviceId: string } | { datasetId: string };

/** The sessions, their devices and their files. Found sessions are tracked: changes are written on commit. */
export interface SessionRepository {
  /** A session of the org (locked for update when asked, in a transaction). */
  find(orgId: string, sessionId: string, lock?: boolean): Promise<SessionRecord | null>;
  /** Sessions of the org by id (one query). */
  findMany(orgId: string, sessionIds: readonly string[]): Promise<SessionRecord[]>;
  /** Adds a session; returns the tracked record, whose later changes are written on commit. */
  add(record: SessionRecord): SessionRecord;
  remove(record: SessionRecord): void;
  /** One page of the sessions in scope, newest first. */
  list(scope: SessionScope, range: ListedRange): Promise<ListedPage<SessionRecord>>;
  /** The first of the org's sessions `where` matches (over the `sessions` row aliased `s`). */
  firstMatch(orgId: string, where: SqlFragment): Promise<SessionRecord | null>;
  /** Serialises creations that match the same query in the org until the transaction ends. */
  lockQuery(orgId: string, query: string): Promise<void>;
  /** The in-progress sessions of `universalDeviceId` named `name`, locked, oldest first. */
  namedOfDevice(universalDeviceId: string, name: string): Promise<SessionRecord[]>;
  /** Links devices (their `universal_device_id`s) to a session; a link already there stays. */
  addDevices(sessionId: string, universalDeviceIds: readonly string[]): Promise<void>;
  removeDevice(sessionId: string, universalDeviceId: string): Promise<void>;
  /** One page of a session's devices' `device_id`s, newest first. */
  listDevices(sessionId: string, range: ListedRange): Promise<ListedPage<string>>;
  /** Writes the links (replacing a file's earlier link to the same session). */
  putFiles(links: readonly SessionFileLink[]): Promise<void>;
  /** Removes the links of `fileIds`; returns the ids that were linked. */
  removeFiles(sessionId: string, fileIds: readonly string[]): Promise<string[]>;
  /** A session's file links with their files (live ones only), `fileIds` of them or all, in the order they were added. */
  files(sessionId: string, fileIds?: readonly string[]): Promise<SessionFileEntry[]>;
  /** How many of the org's complete sessions hold any of these files (one query). */
  countCompleteHolding(orgId: string, fileIds: readonly string[]): Promise<number>;
  /** One page of a session's files (live ones only), newest first. */
  listFiles(sessionId: string, range: ListedRange): Promise<ListedPage<SessionFileEntry>>;
  /** Sets the anchor of every file the session holds (null: none, an offset of 0). */
  anchorFiles(sessionId: string, unixEpochOffsetNs: bigint | null): Promise<void>;
  /** Marks files of the session as no longer waited for; returns the ids that were files of it. */
  skipFiles(sessionId: string, fileIds: readonly string[], by: string, at: Date): Promise<string[]>;
  /** The wall-clock bounds of a session's data: what its bounds are recomputed from (see recomputeBounds). */
  dataBounds(sessionId: string): Promise<{ min: bigint | null; max: bigint | null }>;
  /**
   * One page of the topics the session holds data of, by name then topic id (`range.before`: how
   * many earlier pages served), only those named `name` when given. See listSessionTopics.
   */
  topics(sessionId: string, range: ListedRange, name?: string): Promise<ListedPage<SessionTopicRow>>;
  /** The org's sessions holding the file, locked for update (in session id order, so writers queue alike). */
  holdingFile(orgId: string, fileId: string): Promise<SessionRecord[]>;
  /** Up to `limit` in-progress sessions whose `completes_at` has passed, locked (others skip them). */
  due(now: Date, limit: number): Promise<SessionRecord[]>;
}

/**
 * Reads a completion policy as requests give it: `{inactivity_minutes}` (an integer from 1 to
 * 10,080), or null for none. Errors name `field`.
 */
export function checkCompletionPolicy(value: unknown, field: string): number | null {
  if (value === null) return null;
  if (typeof value !== "object" || Array.isArray(value)) throw invalidArgument(field, "must be an object {inactivity_minutes} or null");
  const minutes = (value as Record<string, unknown>).inactivity_minutes;
  const at = `${field}.inactivity_minutes`;
  if (minutes === undefined || minutes === null) throw invalidArgument(at, "is required");
  if (typeof minutes !== "number" || !Number.isInteger(minutes)) throw invalidArgument(at, "must be an integer");
  if (minutes < 1 || minutes > MAX_INACTIVITY_MINUTES) throw invalidArgument(at, `must be from 1 to ${MAX_INACTIVITY_MINUTES}`);
  return minutes;
}

/** When a session with `inactivityMinutes` completes after activity at `at` (null without a policy). */
export function completionDue(inactivityMinutes: number | null, at: Date): Date | null {
  return inactivityMinutes === null ? null : new Date(at.getTime() + inactivityMinutes * 60_000);
}

/**
 * Records activity on an in-progress session (created, files added, its policy changed): it now
 * completes `inactivity_minutes` from `at`. A complete session stays complete.
 */
export function touchSession(record: SessionRecord, actor: string, at: Date): void {
  record.modified = at;
  record.modifiedBy = actor;
  if (record.status === "in_progress") record.completesAt = completionDue(record.inactivityMinutes, at);
}

/** Marks a session complete by `by` at `at`; a complete one is left as it is (completion is idempotent). */
export function completeSession(record: SessionRecord, by: string, at: Date): void {
  if (record.status === "complete") return;
  record.status = "complete";
  record.completedAt = at;
  record.completedBy = by;
  record.completesAt = null;
  record.modified = at;
  record.modifiedBy = by;
}

/** Recomputes a session's time bounds from its data (the repository's dataBounds). */
export async function recomputeBounds(sessions: Pick<SessionRepository, "dataBounds">, record: SessionRecord): Promise<void> {
  const { min, max } = await sessions.dataBounds(record.sessionId);
  record.minTimestampNs = min;
  record.maxTimestampNs = max;
}
