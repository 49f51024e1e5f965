import { notFound, type UnitOfWork } from "@hangar/shared";
import { recordEntityDeleted } from "./entity-deletions";
import type { DatasetDirectory } from "./datasets";
import { BULK_CANCEL_BATCH_SIZE, cancelInvocation, checkDeletable, moveInvocation, recordHeartbeat } from "./invocation-lifecycle";
import { decodeLogCursor, LOG_PAGE_SIZE } from "./invocation-log-cursor";
import { uploadDestinationDataset } from "./invocation-request";
import type { InvocationStatusValue } from "./invocation-status";
import { createInvocation, type InvocationRequest } from "./invoke";
import type { InvocationLogRecord, InvocationRecord } from "./records";
import type { InvocationRepositories } from "./repositories";

/** An invocation as an operation names it: by id, in the org the caller may read. */
export interface InvocationRef {
  orgId: string;
  invocationId: string;
}

/**
 * Invokes an action (invoke_action): the data source, and the dataset its outputs go to when it
 * names one, must be datasets of the org; then the invocation is created, or the one created
 * under the same idempotency id is returned.
 */
export async function invokeAction(uow: UnitOfWork<InvocationRepositories>, datasets: DatasetDirectory, request: InvocationRequest): Promise<InvocationRecord> {
  await datasets.requireDataset(request.orgId, request.dataSource.id);
  const outputDataset = uploadDestinationDataset(request.uploadDestination ?? null);
  if (outputDataset !== undefined) await datasets.requireDataset(request.orgId, outputDataset);
  return (await createInvocation(uow.repositories(), request)).row;
}

/** An invocation of the org; another org's is not found, like one that does not exist. */
export async function getInvocation(uow: UnitOfWork<InvocationRepositories>, ref: InvocationRef): Promise<InvocationRecord> {
  return found(await uow.repositories().invocations.find(ref.orgId, ref.invocationId), ref);
}

/** Cancels an invocation on behalf of `user` (a repeated cancel succeeds; see cancelInvocation). */
export function cancelInvocationAs(uow: UnitOfWork<InvocationRepositories>, ref: InvocationRef, user: string): Promise<InvocationRecord> {
  return changeLocked(uow, ref, (row) => cancelInvocation(row, user));
}

/** Records a client's heartbeat; refused once the invocation has ended. */
export function heartbeatInvocation(uow: UnitOfWork<InvocationRepositories>, ref: InvocationRef): Promise<InvocationRecord> {
  return changeLocked(uow, ref, (row) => recordHeartbeat(row));
}

/** Deletes an invocation that has ended, with its logs and comments; a running one must be cancelled first. */
export async function deleteInvocation(uow: UnitOfWork<InvocationRepositories>, ref: InvocationRef): Promise<void> {
  await uow.transaction(async ({ invocations, events }) => {
    const row = found(await invocations.lock(ref.orgId, ref.invocationId), ref);
    checkDeletable(row);
    await invocations.remove(row.invocationId);
    recordEntityDeleted(events, row.orgId, "invocation", row.invocationId);
  });
}

/** Records the digest of the image the invocation runs. */
export function setInvocationImageDigest(uow: UnitOfWork<InvocationRepositories>, ref: InvocationRef, imageDigest: string): Promise<InvocationRecord> {
  return changeLocked(uow, ref, (row) => (row.containerImageDigest = imageDigest));
}

/** Points the invocation's outputs at an object-store location (already checked). */
export function setUploadDestination(uow: UnitOfWork<InvocationRepositories>, ref: InvocationRef, destination: { bucket: string; prefix: string }): Promise<InvocationRecord> {
  return changeLocked(uow, ref, (row) => (row.uploadDestination = destination));
}

/** Moves the invocation to `status` under the transition rules (see moveInvocation). */
export function setInvocationStatus(uow: UnitOfWork<InvocationRepositories>, ref: InvocationRef, status: InvocationStatusValue, detail: string | null): Promise<InvocationRecord> {
  return changeLocked(uow, ref, (row) => moveInvocation(row, status, detail));
}

/** Log lines after a cursor: up to LOG_PAGE_SIZE + 1 (the extra one tells that more follow); `total` when counted. */
export interface LogRead {
  invocation: InvocationRecord;
  lines: InvocationLogRecord[];
  total?: number;
}

/**
 * Reads an invocation's log lines after `cursor` (a get_logs `page_token` or stream_logs
 * `last_read`; a bad one is a 400 naming `field`), and with `count` how many it has in all. The
 * invocation is read before the lines: lines written before it ended are then either read or still
 * to come, never lost between the two reads.
 */
export async function readLogs(
  uow: UnitOfWork<InvocationRepositories>,
  ref: InvocationRef,
  read: { cursor: string | undefined; field: string; count: boolean },
): Promise<LogRead> {
  const { invocations } = uow.repositories();
  const invocation = found(await invocations.find(ref.orgId, ref.invocationId), ref);
  const after = decodeLogCursor(invocation.invocationId, read.cursor, read.field);
  const id = invocation.invocationId;
  if (!read.count) return { invocation, lines: await invocations.logsAfter(id, after, LOG_PAGE_SIZE + 1) };
  const [lines, total] = await Promise.all([invocations.logsAfter(id, after, LOG_PAGE_SIZE + 1), invocations.logCount(id)]);
  return { invocation, lines, total };
}

/**
 * Cancels, on behalf of `user`, up to BULK_CANCEL_BATCH_SIZE unfinished invocations of the org
 * created before `before`, oldest first, in one transaction; `hasMore` tells the caller to repeat.
 * Rows a runner's report holds are skipped for the next call, so a bulk cancel never waits on one.
 */
export async function bulkCancelInvocations(
  uow: UnitOfWork<InvocationRepositories>,
  orgId: string,
  before: Date,
  user: string,
): Promise<{ cancelled: number; hasMore: boolean }> {
  const cancelled = await uow.transaction(async ({ invocations }) => {
    const rows = await invocations.lockActiveBefore(orgId, before, BULK_CANCEL_BATCH_SIZE);
    const now = new Date();
    for (const row of rows) cancelInvocation(row, user, now);
    await invocations.update(rows);
    return rows.length;
  });
  return { cancelled, hasMore: await uow.repositories().invocations.hasActiveBefore(orgId, before) };
}

// Read, check and write under the row lock, so two racing changes cannot both apply to the same state.
function changeLocked(uow: UnitOfWork<InvocationRepositories>, ref: InvocationRef, change: (row: InvocationRecord) => unknown): Promise<InvocationRecord> {
  return uow.transaction(async ({ invocations }) => {
    const row = found(await invocations.lock(ref.orgId, ref.invocationId), ref);
    change(row);
    await invocations.update([row]);
    return row;
  });
}

function found(row: InvocationRecord | null, ref: InvocationRef): InvocationRecord {
  if (!row) throw notFound("invocation", ref.invocationId);
  return row;
}
