import type { SessionFileEntry, SessionRecord, SessionRepository } from "./sessions";

/** `in_progress` (the session is), `processing` (complete, files still awaited) or `ingested`. */
export type SessionIngestionState = "in_progress" | "processing" | "ingested";

/** How far a session's files are ingested, as the ingestion routes answer it. */
export interface SessionIngestion {
  sessionId: string;
  state: SessionIngestionState;
  ingestionCount: number;
  /** The first 100 files still awaited, in the order they were added. */
  pending: SessionFileEntry[];
  pendingCount: number;
  failedCount: number;
  ingestedCount: number;
  notIngestableCount: number;
  skipped: SessionFileEntry[];
  skippedCount: number;
}

/** How many awaited files an ingestion status lists. */
export const MAX_PENDING_LISTED = 100;

/**
 * What a file of a session counts as. A file nothing is ingesting (`not_ingested`: no ingestion
 * rule took it) is not ingestable; one being ingested is pending; a skipped file is no longer
 * awaited whatever its status. Failed files are awaited until skipped or ingested again.
 */
function classify(file: SessionFileEntry): "skipped" | "ingested" | "failed" | "not_ingestable" | "pending" {
  if (file.skippedAt !== null) return "skipped";
  switch (file.ingestionStatus) {
    case "ingested":
      return "ingested";
    case "failed":
      return "failed";
    case "not_ingested":
      return "not_ingestable";
    default:
      return "pending";
  }
}

/** The ingestion status of a session from its files. */
export function ingestionOf(session: SessionRecord, files: readonly SessionFileEntry[]): SessionIngestion {
  const by = { skipped: [] as SessionFileEntry[], ingested: 0, failed: 0, not_ingestable: 0, pending: [] as SessionFileEntry[] };
  for (const file of files) {
    const kind = classify(file);
    if (kind === "skipped" || kind === "pending") by[kind].push(file);
    else by[kind] += 1;
  }
  const awaited = by.pending.length + by.failed;
  const state: SessionIngestionState = session.status === "in_progress" ? "in_progress" : awaited > 0 ? "processing" : "ingested";
  return {
    sessionId: session.sessionId,
    state,
    ingestionCount: session.ingestionCount,
    pending: by.pending.slice(0, MAX_PENDING_LISTED),
    pendingCount: by.pending.length,
    failedCount: by.failed,
    ingestedCount: by.ingested,
    notIngestableCount: by.not_ingestable,
    skipped: by.skipped,
    skippedCount: by.skipped.length,
  };
}

/**
 * Records that a complete session has nothing left to await: `ingested_at` is set and
 * `ingestion_count` counts it, once per time the session becomes ingested.
 */
export async function settleIngestion(sessions: Pick<SessionRepository, "files">, session: SessionRecord, now: Date): Promise<SessionIngestion> {
  const ingestion = ingestionOf(session, await sessions.files(session.sessionId));
  if (ingestion.state === "ingested" && session.ingestedAt === null) {
    session.ingestedAt = now;
    session.ingestionCount += 1;
    ingestion.ingestionCount = session.ingestionCount;
  }
  return ingestion;
}
