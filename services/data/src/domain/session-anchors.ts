import { badRequest, invalidArgument, quoteValue, type UnitOfWork } from "@hangar/shared";
import type { Actor } from "./actor";
import { findSession, type SessionRepositories } from "./session-use-cases";
import { INT64_MAX, recomputeBounds, type SessionFileEntry, type SessionRecord } from "./sessions";

/**
 * Anchors a session's data (`offset`, Unix nanoseconds above 0) or, with null, returns it to an
 * offset of 0: every file the session holds gets the anchor, and the bounds are recomputed. The
 * session's data is its files' windows (topic extents join once topics exist): a session with none
 * cannot be anchored, nor one whose data carries several distinct anchors (the server will not pick
 * one to move everything from); an anchor that would move a window before the epoch or past
 * 2^63 - 1 is refused. All are 400s; clearing is always allowed but for the epoch, and repeatable.
 */
export async function setSessionUnixOffset(uow: UnitOfWork<SessionRepositories>, actor: Actor, sessionId: string, offset: bigint | null): Promise<SessionRecord> {
  if (offset !== null && offset <= 0n) throw invalidArgument("unix_epoch_offset_ns", "must be a time after the Unix epoch (above 0); to return to 0, clear the offset");
  return uow.transaction(async (r) => {
    const session = await findSession(r, actor, sessionId, true);
    const timed = (await r.sessions.files(session.sessionId)).filter((f): f is SessionFileEntry & { window: [bigint, bigint] } => f.window !== null);
    if (offset !== null) checkAnchorable(session.sessionId, timed);
    for (const file of timed) checkShifted(file.window, offset ?? 0n);
    await r.sessions.anchorFiles(session.sessionId, offset);
    session.modified = new Date();
    session.modifiedBy = actor.subject;
    await recomputeBounds(r.sessions, session);
    return session;
  });
}

function checkAnchorable(sessionId: string, timed: readonly SessionFileEntry[]): void {
  if (timed.length === 0) throw badRequest(`session ${quoteValue(sessionId)} has no time data to anchor (no file with a window)`);
  const anchors = new Set(timed.map((f) => f.unixEpochOffsetNs ?? 0n));
  if (anchors.size > 1) throw badRequest(`session ${quoteValue(sessionId)} carries ${anchors.size} distinct anchors; anchor its files one at a time`);
}

function checkShifted(window: [bigint, bigint], offset: bigint): void {
  if (window[0] + offset < 0n) throw invalidArgument("unix_epoch_offset_ns", "would move the session's data before the Unix epoch");
  if (window[1] + offset > INT64_MAX) throw invalidArgument("unix_epoch_offset_ns", "would move the session's data past 2^63 - 1 ns");
}
