import { DatasetChange, type DatasetChanged } from "@hangar/shared/proto/events";
import type { UsageRecord } from "./records";
import type { AdminUnitOfWork, UsageRepository } from "./repositories";

/** Usage figure maintained from dataset events. */
export const DATASET_COUNT = "datasets::total_count";

/** The org's usage counters, by resource name. */
export function getOrgUsage(uow: AdminUnitOfWork, orgId: string): Promise<UsageRecord[]> {
  return uow.repositories().usage.ofOrg(orgId);
}

/**
 * Counts a dataset event into its org's dataset count: a creation adds one, a deletion takes one
 * away, other changes leave it. Runs in the consumer's transaction, which records the event as handled.
 */
export async function countDatasetChange(usage: UsageRepository, event: Pick<DatasetChanged, "orgId" | "change">): Promise<void> {
  const delta = event.change === DatasetChange.CREATED ? 1 : event.change === DatasetChange.DELETED ? -1 : 0;
  if (delta !== 0) await usage.add(event.orgId, DATASET_COUNT, delta);
}
