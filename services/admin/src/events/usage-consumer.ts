import { fromBinary } from "@bufbuild/protobuf";
import { TOPICS, type ConsumerDefinition, type EntityManager } from "@hangar/shared";
import { DatasetChangedSchema } from "@hangar/shared/proto/events";
import type { AdminRepositories } from "../domain/repositories";
import { countDatasetChange } from "../domain/usage";

/**
 * Keeps each org's dataset count from the data service's dataset events. `repositoriesIn` binds
 * the admin repositories to the consumer's transaction (`index.ts` passes the store's), so the
 * count changes in the transaction that records the event as handled.
 */
export function usageConsumer(repositoriesIn: (em: EntityManager) => AdminRepositories): ConsumerDefinition {
  return {
    name: "admin.usage",
    topics: [TOPICS.datasetChanged],
    handler: (em, message) => countDatasetChange(repositoriesIn(em).usage, fromBinary(DatasetChangedSchema, message.payload)),
  };
}
