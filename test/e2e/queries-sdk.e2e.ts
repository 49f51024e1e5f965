import { createTenant, startWithTenants, uploadFiles, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { ok } from "./invocation-fixtures";
import { perRelease, sdkWorkspace, type SdkWorkspace } from "./sdk-fixtures";

// Search with the public Python SDK, both releases: RobotoSearch.find_datasets / find_files /
// find_topics / find_collections with the query language (submit, poll get_query, page the results), and the CLI's
// `roboto datasets search` (a QuerySpecification of metadata and tag conditions).

let t: TestPlatform;
let ws: SdkWorkspace;
let tenant: TestTenant;
const ids: Record<string, string> = {};
const workspaces: SdkWorkspace[] = [];
/** The newest release's workspace and org: value counts exist only in its SDK. */
let newest: { workspace: SdkWorkspace; owner: TestTenant } | undefined;

beforeAll(async () => {
  [t] = await startWithTenants([]);
});
afterAll(async () => {
  await Promise.all(workspaces.map((w) => w.close()));
  await t?.close();
});

const search = perRelease(
  async (release) => {
    // Each release gets an org of its own, so the two runs share no data.
    const owner = await createTenant(t, `q-sdk-${release}`);
    const workspace = await sdkWorkspace(t, release);
    workspaces.push(workspace);
    const found: Record<string, string> = {};
    for (const [name, weather, tags, topic] of [
      ["sdk-1", "rain", ["outdoor"], "/lidar"],
      ["sdk-2", "sun", ["indoor"], "/camera"],
    ] as const) {
      const dataset = ok(await owner.client.post("/v1/datasets", { name, metadata: { weather }, tags }));
      found[name] = dataset.dataset_id;
      const created = ok(await owner.client.post("/v1/topics", {
        association: { association_id: dataset.dataset_id, association_type: "dataset" },
        topic_name: topic,
        message_paths: [{ message_path: "cpuload.load", data_type: "float64", canonical_data_type: "number", metadata: { max: weather === "rain" ? 0.95 : 0.1 } }],
      }));
      found[`${name}-topic`] = created.topic_id;
      await uploadFiles(owner.client, dataset.dataset_id, { [`${name}.csv`]: "1", [`${name}.bag`]: "2" });
    }
    found["collection"] = ok(await owner.client.post("/v1/collections/create", { name: "Rainy Runs", tags: ["weather"] })).collection_id;
    ok(await owner.client.post("/v1/collections/create", { name: "misc" }));
    if (release === "newest") newest = { workspace, owner };
    return { owner, workspace, found };
  },
  (context) => {
    tenant = context.owner;
    ws = context.workspace;
    Object.assign(ids, context.found);
  },
);

const FIND = String.raw`
import json, sys
from roboto import RobotoClient, RobotoSearch
args = json.loads(sys.argv[1])
rs = RobotoSearch.for_roboto_client(RobotoClient.from_env())
print(json.dumps({
  "datasets": sorted(d.dataset_id for d in rs.find_datasets(args["datasets"], timeout_seconds=30)),
  "files": sorted(f.relative_path for f in rs.find_files(args["files"], timeout_seconds=30)),
  "topics": sorted(t.topic_id for t in rs.find_topics(args["topics"], timeout_seconds=30)),
  "collections": sorted(c.collection_id for c in rs.find_collections(args["collections"], timeout_seconds=30)),
}))
`;

const CLI = String.raw`
import contextlib, io, json, sys
from roboto.cli.entry import entry
sys.argv = ["roboto", "--suppress-upgrade-check", "datasets", "search", "--metadata", "weather=rain", "--tag", "outdoor"]
out = io.StringIO()
with contextlib.redirect_stdout(out):
    entry()
print(json.dumps([d["dataset_id"] for d in json.loads(out.getvalue())]))
`;

search("RobotoSearch finds datasets, files, topics and collections with the query language", async () => {
  const found = await ws.sdk("find", FIND, {
    datasets: "topic.topic_name = '/lidar' AND metadata.weather = 'rain'",
    files: "dataset.metadata.weather = 'sun' AND path LIKE '%.csv'",
    topics: "msgpaths[cpuload.load].max > 0.9",
    collections: "name CONTAINS 'rainy' AND tags CONTAINS 'weather'",
  }, tenant.token);
  expect(found).toEqual({ datasets: [ids["sdk-1"]], files: ["sdk-2.csv"], topics: [ids["sdk-1-topic"]], collections: [ids["collection"]] });
});

search("roboto datasets search finds by metadata and tag", async () => {
  expect(await ws.sdk("cli", CLI, {}, tenant.token)).toEqual([ids["sdk-1"]]);
});

// SDK 0.62's experimental value counts (sdk-0.62-routes.md rows 66-67): it has no call of its own
// for the counts route, so the script submits with the SDK's own request model and reads the counts
// with its client, parsing them into the SDK's ValueCounts.
const VALUE_COUNTS = String.raw`
import json
from roboto import RobotoClient
from roboto.query import QueryClient, QuerySpecification, QueryTarget, SubmitStructuredQueryRequest, ValueCounts, ValueCountsSpec
client = RobotoClient.from_env()
request = SubmitStructuredQueryRequest(query=QuerySpecification(), target=QueryTarget.Datasets, value_counts=ValueCountsSpec(field="metadata.weather"))
query = QueryClient(roboto_client=client).submit_structured(request)
counts = client.get(f"v1/query/id/{query.query_id}/value-counts").to_record(ValueCounts)
print(json.dumps({"matched": counts.matched, "values": [[v.value, v.count] for v in counts.values], "truncated": counts.truncated}))
`;

test("SDK 0.62 submits a query with value_counts and reads the counts into its ValueCounts model", async () => {
  const { workspace, owner } = newest!;
  expect(await workspace.sdk("value-counts", VALUE_COUNTS, {}, owner.token)).toEqual({
    matched: 2,
    values: [
      ["rain", 1],
      ["sun", 1],
    ],
    truncated: false,
  });
});
