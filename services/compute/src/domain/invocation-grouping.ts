import { invalidArgument, quoteValue } from "@hangar/shared";
import { checkStatus } from "./invocation-status";

/** What invocations may be grouped by: the action, the source (trigger or user) and the submitting user. */
export type GroupDimension = "action" | "source" | "submitter";

const DIMENSIONS: readonly GroupDimension[] = ["action", "source", "submitter"];

/** The number of groups returned when a request names no limit. */
export const DEFAULT_GROUP_LIMIT = 20;
/** The most groups one request may ask for. */
export const MAX_GROUP_LIMIT = 100;

/** A validated group_invocations request (without its condition). */
export interface GroupSpec {
  statuses: number[];
  dimensions: GroupDimension[];
  limit: number;
}

/**
 * Checks a grouping request: `statuses` a non-empty list of InvocationStatus values, `group_by` a
 * non-empty list of `action`, `source`, `submitter` (repeats ignored), `limit` 1 to 100 (default 20).
 */
export function checkGroupSpec(statuses: readonly number[], groupBy: readonly string[], limit: bigint | undefined): GroupSpec {
  if (statuses.length === 0) throw invalidArgument("statuses", "must list at least one InvocationStatus");
  if (groupBy.length === 0) throw invalidArgument("group_by", `must list at least one of ${DIMENSIONS.join(", ")}`);
  const dimensions = groupBy.map((name, i) => {
    if (!DIMENSIONS.includes(name as GroupDimension)) throw invalidArgument(`group_by[${i}]`, `must be one of ${DIMENSIONS.join(", ")}, got ${quoteValue(name)}`);
    return name as GroupDimension;
  });
  if (limit !== undefined && (limit < 1n || limit > BigInt(MAX_GROUP_LIMIT))) {
    throw invalidArgument("limit", `must be from 1 to ${MAX_GROUP_LIMIT}, got ${limit}`);
  }
  return {
    statuses: [...new Set(statuses.map((s, i) => checkStatus(s, `statuses[${i}]`)))],
    dimensions: [...new Set(dimensions)],
    limit: limit === undefined ? DEFAULT_GROUP_LIMIT : Number(limit),
  };
}
