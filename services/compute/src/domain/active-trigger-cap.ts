import { permissionDenied, quoteValue } from "@hangar/shared";
import type { TriggerRepository } from "./repositories";

/** The default of TRIGGER_ACTIVE_LIMIT: enabled triggers per org. */
export const DEFAULT_ACTIVE_TRIGGER_LIMIT = 1000;

/**
 * Refuses a trigger becoming active when the org already has `limit` enabled triggers (sdk-0.62-routes.md
 * row 5), with a 403, the status of the client SDK's RobotoLimitExceededException (the error envelope's
 * integer code cannot carry its string code). Call it in the transaction that enables or creates the
 * trigger, before writing it: the count is taken under the org's cap lock, held to commit, so two
 * enables at once cannot both take the last slot. Triggers an ingestion rule manages are not counted
 * (nor capped): they follow their rule's auto_ingest, and an org's default rule is made for it.
 */
export async function requireActiveSlot(triggers: TriggerRepository, orgId: string, limit: number): Promise<void> {
  const active = await triggers.lockActiveCount(orgId);
  if (active >= limit) {
    throw permissionDenied("enabled", `org ${quoteValue(orgId)} has ${active} enabled triggers, its limit of active triggers is ${limit}: disable or delete one first`);
  }
}
