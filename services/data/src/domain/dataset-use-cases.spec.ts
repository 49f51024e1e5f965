import { fromBinary } from "@bufbuild/protobuf";
import { fixedUnitOfWork, TOPICS } from "@hangar/shared";
import { DatasetChange, DatasetChangedSchema } from "@hangar/shared/proto/events";
import { createDataset, createDatasetIfNotExists, deleteDataset, searchDatasets, updateDataset, updateDatasetPermissions } from "./dataset-use-cases";
import { datasetRecord, fakeRepositories } from "./fake-repositories.fixture";

const alice = { orgId: "og_a", subject: "u_alice" };
const bob = { orgId: "og_b", subject: "u_bob" };
const noOrg = { orgId: undefined, subject: "u_nobody" };

function setUp() {
  const fake = fakeRepositories();
  fake.datasets.set("ds_1", datasetRecord("ds_1", "og_a"));
  return { ...fake, uow: fixedUnitOfWork(fake.repositories) };
}

function changeOf(payload: Uint8Array) {
  const event = fromBinary(DatasetChangedSchema, payload);
  return { change: event.change, datasetId: event.datasetId, orgId: event.orgId, actor: event.actor };
}

describe("createDataset", () => {
  it("adds the dataset and records its created event", async () => {
    const { uow, events } = setUp();
    const record = await createDataset(uow, alice, { name: "new", tags: ["x", "x", "y"] });
    expect(record).toMatchObject({ orgId: "og_a", name: "new", description: null, tags: ["x", "y"], createdBy: "u_alice", serviceRecordVersion: 1 });
    expect(events.map((e) => e.topic)).toEqual([TOPICS.datasetChanged]);
    expect(changeOf(events[0]!.payload)).toEqual({ change: DatasetChange.CREATED, datasetId: record.datasetId, orgId: "og_a", actor: "u_alice" });
  });

  it("refuses an empty tag naming its index under the request's prefix, and writes nothing", async () => {
    const { uow, calls } = setUp();
    await expect(createDataset(uow, alice, { tags: ["ok", ""], fieldPrefix: "create_request." })).rejects.toThrow("create_request.tags[1]: must not be empty");
    expect(calls).toEqual([]);
  });
});

describe("updateDataset", () => {
  it("locks the dataset, applies each given field (null clears), bumps the version and records an updated event", async () => {
    const { uow, calls, datasets, events } = setUp();
    const record = await updateDataset(uow, { ...alice, subject: "u_editor" }, "ds_1", {
      name: "renamed",
      description: null,
      metadataChangeset: { putFields: { speed: 3 }, removeFields: [], replaceAll: false, putTags: ["b"], removeTags: ["a"] },
    });
    expect(calls[0]).toBe("datasets.find ds_1 locked");
    expect(record).toBe(datasets.get("ds_1"));
    expect(record).toMatchObject({ name: "renamed", description: null, deviceId: null, metadata: { site: "north", speed: 3 }, tags: ["b"], modifiedBy: "u_editor", serviceRecordVersion: 2 });
    expect(changeOf(events[0]!.payload)).toMatchObject({ change: DatasetChange.UPDATED, actor: "u_editor" });
  });

  it("is a 404 in another org or with no readable org, and records nothing", async () => {
    for (const actor of [bob, noOrg]) {
      const { uow, events, datasets } = setUp();
      await expect(updateDataset(uow, actor, "ds_1", { name: "taken" })).rejects.toThrow("dataset 'ds_1' not found");
      expect(datasets.get("ds_1")!.name).toBe("run");
      expect(events).toEqual([]);
    }
  });

  it("checks the tags to put before changing anything, naming the field", async () => {
    const { uow, datasets, events } = setUp();
    const bad = { putFields: { speed: 3 }, removeFields: [], replaceAll: false, putTags: [""], removeTags: [] };
    await expect(updateDataset(uow, alice, "ds_1", { metadataChangeset: bad })).rejects.toThrow("metadata_changeset.put_tags[0]: must not be empty");
    expect(datasets.get("ds_1")!.metadata).toEqual({ site: "north" });
    expect(events).toEqual([]);
  });
});

describe("deleteDataset", () => {
  it("locks, removes the dataset and its tuples, retires its files and records a deleted event, in that order", async () => {
    const { uow, calls } = setUp();
    await deleteDataset(uow, alice, "ds_1");
    expect(calls).toEqual(["datasets.find ds_1 locked", "datasets.remove ds_1", "relations.removeAll ds_1", "retire dataset ds_1", `event ${TOPICS.datasetChanged} ds_1`]);
  });

  it("is a 404 for another org's dataset", async () => {
    const { uow, calls } = setUp();
    await expect(deleteDataset(uow, bob, "ds_1")).rejects.toThrow("dataset 'ds_1' not found");
    expect(calls).toEqual(["datasets.find ds_1 locked"]);
  });
});

describe("updateDatasetPermissions", () => {
  const tuple = (user: string, relation: string) => ({ user, relation, obj: "" });

  it("removes first, adds what is not there yet, and lists the implicit tuples before the stored ones", async () => {
    const { uow, relations } = setUp();
    relations.push({ datasetId: "ds_1", subject: "u_old", relation: "viewer" }, { datasetId: "ds_1", subject: "u_kept", relation: "editor" });
    const permissions = await updateDatasetPermissions(uow, alice, "ds_1", { add: [tuple("u_kept", "editor"), tuple("u_new", "viewer")], remove: [tuple("u_old", "viewer")] });
    expect(permissions.relations).toEqual([
      { user: "u_owner", relation: "owner", obj: "dataset:ds_1" },
      { user: "org:og_a#member", relation: "editor", obj: "dataset:ds_1" },
      { user: "u_kept", relation: "editor", obj: "dataset:ds_1" },
      { user: "u_new", relation: "viewer", obj: "dataset:ds_1" },
    ]);
  });

  it("changes nothing when any tuple is bad, naming it", async () => {
    const { uow, calls } = setUp();
    const edit = { add: [tuple("u_new", "viewer"), tuple("u_x", "admin")], remove: [tuple("u_old", "viewer")] };
    await expect(updateDatasetPermissions(uow, alice, "ds_1", edit)).rejects.toThrow("add[1].relation: unknown relation 'admin'");
    expect(calls).toEqual(["datasets.find ds_1"]);
  });
});

describe("createDatasetIfNotExists", () => {
  it("answers the existing match without creating or recording anything, after locking the parsed query", async () => {
    const { uow, calls, events } = setUp();
    const { record, created } = await createDatasetIfNotExists(uow, alice, { text: "name   =  'run'", field: "match_serviceql_query" }, { tags: [] });
    expect({ id: record.datasetId, created }).toEqual({ id: "ds_1", created: false });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(/^datasets\.lockQuery og_a \{/);
    expect(events).toEqual([]);
  });

  it("creates and records the candidate when nothing matches", async () => {
    const { uow, events } = setUp();
    const { record, created } = await createDatasetIfNotExists(uow, bob, { text: "name = 'run'", field: "match_roboql_query" }, { name: "run", tags: [] });
    expect({ orgId: record.orgId, created }).toEqual({ orgId: "og_b", created: true });
    expect(changeOf(events[0]!.payload)).toMatchObject({ change: DatasetChange.CREATED, datasetId: record.datasetId });
  });

  it("refuses a bad query naming the field it came in, before locking anything", async () => {
    const { uow, calls } = setUp();
    await expect(createDatasetIfNotExists(uow, alice, { text: "name = ", field: "match_roboql_query" }, { tags: [] })).rejects.toThrow(/^\[invalid_argument\] match_roboql_query/);
    expect(calls).toEqual([]);
  });
});

describe("searchDatasets", () => {
  it("checks the query even for a caller who can read no org, then finds nothing", async () => {
    const { uow } = setUp();
    await expect(searchDatasets(uow, noOrg, { limit: -1n })).rejects.toThrow(/invalid_argument/);
    expect(await searchDatasets(uow, noOrg, {})).toBeUndefined();
  });
});
