import { fromBinary } from "@bufbuild/protobuf";
import { TOPICS, type ConsumerDefinition } from "@hangar/shared";
import { DatasetChange, DatasetChangedSchema } from "@hangar/shared/proto/events";
import { IdentityStore } from "../store/identity-store";

/** Usage figure maintained from dataset events. */
export const DATASET_COUNT = "datasets::total_count";

/** Keeps each org's dataset count from the data service's dataset events. */
export const usageConsumer: ConsumerDefinition = {
  name: "admin.usage",
  topics: [TOPICS.datasetChanged],
  async handler(em, message) {
    const event = fromBinary(DatasetChangedSchema, message.payload);
    const delta = event.change === DatasetChange.CREATED ? 1 : event.change === DatasetChange.DELETED ? -1 : 0;
    if (delta !== 0) await new IdentityStore(em).addUsage(event.orgId, DATASET_COUNT, delta);
  },
};
