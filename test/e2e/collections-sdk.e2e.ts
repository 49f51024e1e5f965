import { startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { perRelease, sdkWorkspace, type SdkRelease, type SdkWorkspace } from "./sdk-fixtures";

// The SDK's `Collection` on both releases (the pinned 0.53.0 and the newest 0.62.0), each in an
// org of its own: create with datasets and tags, add and remove resources, versions (from_id by
// version, content modes), the change history, listing, permissions and delete; every effect is
// read back through the gateway. (The script is not named `collections.py`: that would shadow the
// standard library module of the same name.)

let t: TestPlatform;
const tenants = {} as Record<SdkRelease, TestTenant>;
const workspaces: SdkWorkspace[] = [];
let tenant: TestTenant;
let workspace: SdkWorkspace;

beforeAll(async () => {
  const [platform, pinned, newest] = await startWithTenants(["sdk-collections-pinned", "sdk-collections-newest"]);
  t = platform;
  Object.assign(tenants, { pinned, newest });
}, 120_000);
afterAll(async () => {
  await t?.close();
  for (const w of workspaces) await w.close();
});

const each = perRelease(
  async (release) => {
    const created = await sdkWorkspace(t, release);
    workspaces.push(created);
    return { tenant: tenants[release], workspace: created };
  },
  (context) => ({ tenant, workspace } = context),
);

const COLLECTIONS = `
import json, sys
from roboto import Dataset, RobotoClient
from roboto.domain.collections import Collection, CollectionContentMode
from roboto.exceptions import RobotoNotFoundException

client = RobotoClient.from_env()
first = Dataset.create(name="sdk-col-1", roboto_client=client)
second = Dataset.create(name="sdk-col-2", roboto_client=client)
collection = Collection.create(name="sdk-collection", description="runs", dataset_ids=[first.dataset_id], tags=["sdk"], roboto_client=client)
created_version = collection.record.version
created_datasets = collection.datasets
collection.add_dataset(second.dataset_id)
collection.remove_dataset(first.dataset_id)
collection.update(name="renamed", add_tags=["more"])

at_zero = Collection.from_id(collection.collection_id, version=0, roboto_client=client)
summary = Collection.from_id(collection.collection_id, content_mode=CollectionContentMode.SummaryOnly, roboto_client=client)
refs = Collection.from_id(collection.collection_id, content_mode=CollectionContentMode.References, roboto_client=client)
changes = [c.model_dump(mode="json") for c in collection.changes()]
listed = [c.collection_id for c in Collection.list_all(roboto_client=client)]
access = collection.get_access().model_dump(mode="json")

result = {
    "collection_id": collection.collection_id,
    "first": first.dataset_id,
    "second": second.dataset_id,
    "created_version": created_version,
    "created_datasets": created_datasets,
    "version": collection.record.version,
    "name": collection.name,
    "tags": collection.record.tags,
    "datasets": collection.datasets,
    "at_zero": {"datasets": at_zero.datasets, "name": at_zero.name, "version": at_zero.record.version},
    "summary_datasets": summary.datasets,
    "refs_datasets": refs.datasets,
    "changes": [(c["from_version"], c["to_version"], [r["resource_id"] for r in c["change_set"]["added_resources"]], [r["resource_id"] for r in c["change_set"]["removed_resources"]], c["change_set"]["added_tags"]) for c in changes],
    "from_1": [c.to_version for c in collection.changes(from_version=1)],
    "listed": listed,
    "access_relations": [r["relation"] for r in access["relations"]],
}
collection.delete()
try:
    Collection.from_id(collection.collection_id, roboto_client=client)
    result["after_delete"] = "found"
except RobotoNotFoundException:
    result["after_delete"] = "not found"
print(json.dumps(result))
`;

each("Collection: create, add and remove resources, versions, changes, list, access and delete", async () => {
  const out = await workspace.sdk("sdk_collection_flow", COLLECTIONS, {}, tenant.token);
  expect(out).toMatchObject({
    created_version: 0,
    created_datasets: [out.first],
    version: 3,
    name: "renamed",
    tags: ["sdk", "more"],
    datasets: [out.second],
    at_zero: { datasets: [out.first], name: "sdk-collection", version: 0 },
    summary_datasets: [],
    refs_datasets: [out.second],
    changes: [
      [0, 1, [out.second], [], []],
      [1, 2, [], [out.first], []],
      [2, 3, [], [], ["more"]],
    ],
    from_1: [2, 3],
    listed: [out.collection_id],
    access_relations: ["owner", "editor"],
    after_delete: "not found",
  });
  expect((await tenant.client.get(`/v1/collections/id/${out.collection_id}`)).status).toBe(404);
});
