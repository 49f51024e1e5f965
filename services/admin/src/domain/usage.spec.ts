import { DatasetChange } from "@hangar/shared/proto/events";
import { inMemoryAdmin } from "./in-memory-repositories.fixture";
import { countDatasetChange, DATASET_COUNT, getOrgUsage } from "./usage";

describe("countDatasetChange", () => {
  test("a creation counts one up, a deletion one down, in the event's org", async () => {
    const { uow } = inMemoryAdmin();
    const usage = uow.repositories().usage;
    await countDatasetChange(usage, { orgId: "og_1", change: DatasetChange.CREATED });
    await countDatasetChange(usage, { orgId: "og_1", change: DatasetChange.CREATED });
    await countDatasetChange(usage, { orgId: "og_2", change: DatasetChange.CREATED });
    await countDatasetChange(usage, { orgId: "og_1", change: DatasetChange.DELETED });
    await expect(getOrgUsage(uow, "og_1")).resolves.toEqual([{ orgId: "og_1", resourceName: DATASET_COUNT, quantity: "1" }]);
  });

  test("other changes write nothing", async () => {
    const { uow, state } = inMemoryAdmin();
    await countDatasetChange(uow.repositories().usage, { orgId: "og_1", change: DatasetChange.UPDATED });
    expect(state.usage).toEqual([]);
  });
});
