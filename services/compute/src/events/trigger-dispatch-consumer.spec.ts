import { create, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { TOPICS } from "@hangar/shared";
import { DatasetChange, DatasetChangedSchema } from "@hangar/shared/proto/events";
import { eventNamespace, type EntityReader } from "../domain/trigger-dry-run";
import { platformEventsOf } from "./trigger-dispatch-consumer";

// A dataset-changed event carries the dataset as the change left it; triggers judge that, not the
// dataset as it reads when the event is handled (a later change may have replaced it by then).

const laterState: EntityReader = {
  dataset: async () => ({ dataset_id: "ds_1", metadata: { robot: "rover-9" } }),
  file: async () => null,
};

function changed(metadata: JsonObject | undefined) {
  const payload = create(DatasetChangedSchema, {
    orgId: "og_1",
    datasetId: "ds_1",
    change: DatasetChange.UPDATED,
    ...(metadata ? { dataset: { datasetId: "ds_1", orgId: "og_1", metadata } } : {}),
  });
  return { eventId: "ev_1", topic: TOPICS.datasetChanged, key: "ds_1", payload: toBinary(DatasetChangedSchema, payload), headers: {} };
}

describe("dataset-changed events", () => {
  it("judge the dataset as the change left it, not as it reads later", async () => {
    const [event] = platformEventsOf(changed({ robot: "rover-1" }));
    expect(event).toMatchObject({ type: "dataset.metadata_updated", data: { dataset_id: "ds_1" } });
    const namespace = await eventNamespace(event!, laterState);
    expect(namespace.records.dataset).toMatchObject({ dataset_id: "ds_1", metadata: { robot: "rover-1" } });
  });

  it("read the dataset when the event carries none (written before events carried it)", async () => {
    const [event] = platformEventsOf(changed(undefined));
    const namespace = await eventNamespace(event!, laterState);
    expect(namespace.records.dataset).toMatchObject({ metadata: { robot: "rover-9" } });
  });
});
