import { invalidArgument, notFound, type UnitOfWork } from "@hangar/shared";
import type { Actor } from "./actor";
import type { DataRepositories } from "./repositories";
import { checkShift, stripSelectors, type FileTopicRepositories, type FileTopicsHooks } from "./file-topic-use-cases";
import type { FileExtent, TimelineExtentRow } from "./file-topics";
import { linkWindow, sliceHolds } from "./read-plans";
import { findSession } from "./session-use-cases";
import type { SessionFileEntry } from "./sessions";
import { findTopic } from "./topic-use-cases";

/**
 * set_topic_unix_offset and clear_topic_unix_offset (sdk-0.62-routes.md rows 47-48): anchors
 * the parts of one topic that one session holds (an extent on one of its files, inside the slice
 * and window it holds there) at `offset`, Unix nanoseconds above 0, or with null returns them to
 * an offset of 0. The data is shared, not copied: every session holding those parts reads the
 * anchor. Parts already at the offset are left alone and not returned. A session or topic not of
 * the caller's org, or a session holding none of the topic's data, is a 404; an offset that would
 * move data before the epoch or past 2^63 - 1 is a 400. One transaction, the session row locked
 * (a concurrent add of files waits); sessions holding the files follow through the file topic hooks.
 */
export async function setTopicUnixOffset(
  uow: UnitOfWork<FileTopicRepositories & Pick<DataRepositories, "datasets">>,
  actor: Actor,
  topicId: string,
  sessionId: string,
  offset: bigint | null,
  hooks: FileTopicsHooks,
): Promise<TimelineExtentRow[]> {
  if (offset !== null && offset <= 0n) throw invalidArgument("unix_epoch_offset_ns", "must be a time after the Unix epoch (above 0); to return to 0, clear the offset");
  const target = offset ?? 0n;
  return uow.transaction(async (r) => {
    const topic = await findTopic(r, actor, { topicId });
    if (!sessionId) throw invalidArgument("session_id", "is required: the session whose data is anchored");
    const session = await findSession(r, actor, sessionId, true);
    const extents = await r.timelines.extentsOfFile(topic.orgId, topic.associationId);
    const links = new Map((await r.sessions.files(session.sessionId)).map((f) => [f.fileId, f]));
    const held = extents.filter((x) => x.topicId === topic.topicId && heldBy(links.get(x.fileId), x));
    if (held.length === 0) throw notFound("data of the topic in session", sessionId);
    const changed = held.filter((x) => x.unixEpochOffsetNs !== target);
    changed.forEach((x) => checkShift(x, target, "unix_epoch_offset_ns"));
    const now = new Date();
    const rows = changed.map((x) => ({ ...stripSelectors(x), unixEpochOffsetNs: target, modified: now, modifiedBy: actor.subject }));
    if (rows.length === 0) return rows;
    await r.timelines.setOffsets(rows);
    await r.timelines.recomputeTopicBounds([topic.topicId]);
    await hooks.fileTopicsChanged(r, { orgId: topic.orgId, fileId: topic.associationId, before: extents });
    return rows;
  });
}

/** Whether the session's link to the file holds the extent: inside its slice and overlapping its window (Unix time). */
function heldBy(link: SessionFileEntry | undefined, x: FileExtent): boolean {
  if (!link || !sliceHolds(link, x)) return false;
  const window = linkWindow(link);
  if (window === null || x.minTimestamp === null || x.maxTimestamp === null) return true;
  return x.minTimestamp + x.unixEpochOffsetNs <= window.end && x.maxTimestamp + x.unixEpochOffsetNs >= window.start;
}
