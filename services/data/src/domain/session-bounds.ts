import { invalidArgument, quoteValue } from "@hangar/shared";
import type { FileTopicRepositories, FileTopicsChange, FileTopicsHooks } from "./file-topic-use-cases";
import type { TimelineExtentRow } from "./file-topics";
import { INT64_MAX, recomputeBounds, type SessionFileEntry } from "./sessions";

/**
 * The file topic hooks that keep sessions following their files' topics (calibrate_file_timelines
 * rule 5): in the write's transaction, every session holding the file moves its explicit window
 * over the file by the distance its slice's data moved, when that slice carried one offset before
 * and carries one after (else the window stays), and has its bounds recomputed.
 */
export const SESSION_BOUNDS_HOOKS: FileTopicsHooks = { fileTopicsChanged: sessionsFollowFileTopics };

async function sessionsFollowFileTopics(r: FileTopicRepositories, change: FileTopicsChange): Promise<void> {
  const sessions = await r.sessions.holdingFile(change.orgId, change.fileId);
  if (sessions.length === 0) return;
  const after = await r.timelines.extentsOfFile(change.orgId, change.fileId);
  for (const session of sessions) {
    const [link] = await r.sessions.files(session.sessionId, [change.fileId]);
    if (link?.window) await moveWindow(r, link, link.window, windowMove(inSlice(change.before, link.dataRange), inSlice(after, link.dataRange)));
    await recomputeBounds(r.sessions, session);
  }
}

/** How far a slice's data moved: the change of its one offset, or 0 when it carried several (or none) on either side. */
function windowMove(before: readonly TimelineExtentRow[], after: readonly TimelineExtentRow[]): bigint {
  const was = new Set(before.map((x) => x.unixEpochOffsetNs));
  const is = new Set(after.map((x) => x.unixEpochOffsetNs));
  return was.size === 1 && is.size === 1 ? [...is][0]! - [...was][0]! : 0n;
}

function inSlice(extents: readonly TimelineExtentRow[], slice: [bigint, bigint] | null): TimelineExtentRow[] {
  if (slice === null) return [...extents];
  return extents.filter((x) => x.dataRange === null || (x.dataRange[0] < slice[1] && slice[0] < x.dataRange[1]));
}

async function moveWindow(r: FileTopicRepositories, link: SessionFileEntry, window: [bigint, bigint], distance: bigint): Promise<void> {
  if (distance === 0n) return;
  const anchor = (link.unixEpochOffsetNs ?? 0n) + distance;
  if (window[0] + anchor < 0n || window[1] + anchor > INT64_MAX) {
    throw invalidArgument("offsets", `would move session ${quoteValue(link.sessionId)}'s window over the file before the Unix epoch or past 2^63 - 1 ns`);
  }
  await r.sessions.putFiles([{ ...link, unixEpochOffsetNs: anchor, modified: new Date() }]);
}
