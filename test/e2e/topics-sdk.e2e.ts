import { createDataset, startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { ok } from "./invocation-fixtures";
import { imuRecordingScript, sdkWorkspace, type SdkRelease, type SdkWorkspace } from "./sdk-fixtures";

// The read loop of issue 12 with the public Python SDK itself, in both releases: a script records an
// MCAP with the `mcap` writer (one JSON channel) and uploads it with the SDK; the test registers
// the topic, its message paths and an `mcap` representation pointing at the file through the HTTP
// API (as the built-in ingestion will); then `Topic.get_data()` and `get_data_as_df()` with
// message-path include/exclude and a time window return exactly the messages written.

let t: TestPlatform;
let alice: TestTenant;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["topics-sdk-alice"]);
});
afterAll(() => t?.close());

/** Ten messages on channel `/imu`: `{"x": i, "y": i * 2.5, "nested": {"z": f"s{i}"}}` for message i. */
const RECORD = imuRecordingScript(`{"x": i, "y": i * 2.5, "nested": {"z": f"s{i}"}}`);

/** Reads the topic back through the SDK: all of it, then with filters and a time window, as rows and as a data frame. */
const READ = String.raw`
import json, sys
from roboto.domain.topics import Topic
args = json.loads(sys.argv[1])
topic = Topic.from_id(args["topic_id"])
everything = [[t, r] for t, r in topic.get_data()]
window = [[t, r] for t, r in topic.get_data(message_paths_include=["x", "nested.z"], start_time=1_200_000_000, end_time=1_500_000_000)]
excluded = [[t, r] for t, r in topic.get_data(message_paths_exclude=["nested"], start_time=1_800_000_000)]
df = topic.get_data_as_df(message_paths_include=["y"], start_time=1_000_000_000, end_time=1_300_000_000)
print(json.dumps({"everything": everything, "window": window, "excluded": excluded, "df": {"columns": list(df.columns), "y": df["y"].tolist(), "index": [int(ts.value) for ts in df.index]}}))
`;

const PATHS = [
  { message_path: "x", data_type: "integer", canonical_data_type: "number" },
  { message_path: "y", data_type: "number", canonical_data_type: "number" },
  { message_path: "nested", data_type: "object", canonical_data_type: "object" },
  { message_path: "nested.z", data_type: "string", canonical_data_type: "string" },
];

const message = (i: number) => [1_000_000_000 + i * 100_000_000, { x: i, y: i * 2.5, nested: { z: `s${i}` } }];

describe.each<SdkRelease>(["pinned", "newest"])("Topic.get_data with the %s SDK", (release) => {
  let ws: SdkWorkspace;
  beforeAll(async () => {
    ws = await sdkWorkspace(t, release);
  });
  afterAll(() => ws?.close());

  test("returns exactly the messages written, filtered by message path and time", async () => {
    const datasetId = await createDataset(alice.client, `topics-sdk-${release}`);
    const { file_id: fileId } = await ws.sdk("record", RECORD, { dataset_id: datasetId }, alice.token);
    const topic = ok(
      await alice.client.post("/v1/topics", {
        association: { association_id: fileId, association_type: "file" },
        topic_name: "/imu",
        schema_name: "Imu",
        start_time: 1_000_000_000,
        end_time: 1_900_000_000,
        message_count: 10,
        message_paths: PATHS,
      }),
    );
    const association = { association_id: fileId, association_type: "file" };
    for (const path of topic.message_paths) {
      ok(await alice.client.post(`/v1/topics/id/${topic.topic_id}/message-path/representation`, { association, storage_format: "mcap", version: 1, message_path_id: path.message_path_id }));
    }
    ok(await alice.client.post(`/v1/topics/id/${topic.topic_id}/representation`, { association, storage_format: "mcap", version: 1 }));

    const read = await ws.sdk("read", READ, { topic_id: topic.topic_id }, alice.token);
    expect(read.everything).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(message));
    expect(read.window).toEqual([2, 3, 4].map((i) => [1_000_000_000 + i * 100_000_000, { x: i, nested: { z: `s${i}` } }]));
    expect(read.excluded).toEqual([8, 9].map((i) => [1_000_000_000 + i * 100_000_000, { x: i, y: i * 2.5 }]));
    expect(read.df).toEqual({ columns: ["y"], y: [0, 2.5, 5], index: [1_000_000_000, 1_100_000_000, 1_200_000_000] });
  });
});
