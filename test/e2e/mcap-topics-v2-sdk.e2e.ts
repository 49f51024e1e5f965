import { createTenant, createDataset, startWithTenants, waitFor, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { at, imu, point, range, RECORD_MCAP } from "./mcap-recording";
import { sdkWorkspace, type SdkWorkspace } from "./sdk-fixtures";

// The 0.62 client's experimental topic read path on an ingested MCAP (issue 12; sdk-0.62-routes.md
// rows 47-50): `roboto.experimental.topics.Topic.get_data` loads the topic from `/v2/topics`,
// resolves a read plan (`POST /v2/topics/id/{id}/read-plan`), then decodes the plan's files itself
// with the SDK's Rust MCAP codec and pyarrow (its `analytics` extra, which
// scripts/install-python-sdk.sh installs). The MCAP is recorded with the Python writers (a JSON
// channel and a ROS 2 channel), uploaded with the SDK and ingested by the org's default rule; the
// plan points at the derived per-topic files, and the rows read are exactly the messages written.

// Two Python processes (one importing pyarrow and pandas) and an ingestion run: past jest's 60 s
// under a loaded run.
jest.setTimeout(240_000);

let t: TestPlatform;
let alice: TestTenant;
let ws: SdkWorkspace;

beforeAll(async () => {
  [t] = await startWithTenants([], { runner: true });
  alice = await createTenant(t, "mcap-topics-v2-sdk");
  ws = await sdkWorkspace(t, "newest");
});
afterAll(async () => {
  await t?.close();
  await ws?.close();
});


/**
 * Reads both topics through the experimental v2 path, in the file's context (the window defaults to
 * the topic's data in the file) and in a dataset context with an explicit window: every row as
 * [timestamp, fields], the rows of a projection, and a data frame.
 */
const READ = String.raw`
import json, sys
from roboto import File
from roboto.experimental.topics import DatasetContext, FileContext, Topic, timestamp_column_index
args = json.loads(sys.argv[1])
file = File.from_id(args["file_id"])

def rows(topic, **kw):
    out = []
    for batch in topic.get_data_as_record_batches(**kw):
        ts = timestamp_column_index(batch.schema)
        names = [n for i, n in enumerate(batch.schema.names) if i != ts]
        for row in batch.to_pylist():
            out.append([row.pop(batch.schema.names[ts]), {n: row[n] for n in names}])
    return out

def topic(name, context):
    return Topic.from_id(file.get_topic(name).record.topic_id, context=context)

in_file = FileContext(file_id=args["file_id"])
in_dataset = DatasetContext(dataset_id=args["dataset_id"])
df = topic("/imu", in_file).get_data_as_df(fields_include=[("y",)], start_time=1_000_000_000, end_time=1_200_000_000)
print(json.dumps({
    "imu": rows(topic("/imu", in_file)),
    "imu_window": rows(topic("/imu", in_dataset), start_time=1_200_000_000, end_time=1_400_000_000, fields_include=[("x",), ("nested", "z")]),
    "imu_excluded": rows(topic("/imu", in_file), start_time=1_800_000_000, fields_exclude=[("nested",)]),
    "point": rows(topic("/point", in_file)),
    "point_window": rows(topic("/point", in_dataset), start_time=1_200_000_000, end_time=1_400_000_001, fields_include=[("label",)]),
    "df": {"columns": list(df.columns), "y": df["y"].tolist(), "index": [int(ts.value) for ts in df.index]},
}))
`;

test("SDK 0.62's experimental Topic.get_data reads an ingested MCAP's topics through the v2 read plan, exactly as written", async () => {
  const datasetId = await createDataset(alice.client, "mcap-topics-v2-sdk");
  const { file_id: fileId } = await ws.sdk("record", RECORD_MCAP, { dataset_id: datasetId }, alice.token);
  await waitFor("the default rule's ingestion", async () => {
    const got = (await alice.client.get(`/v1/files/record/${fileId}`)).body.data;
    return got.ingestion_status === "ingested" ? true : undefined;
  }, 120_000, 250);

  const read = await ws.sdk("read", READ, { file_id: fileId, dataset_id: datasetId }, alice.token);
  expect(read.imu).toEqual(range(0, 10).map((i) => [at(i), imu(i)]));
  // The window is inclusive at both ends; a projection keeps the subtrees named, within their parents.
  expect(read.imu_window).toEqual([2, 3, 4].map((i) => [at(i), { x: i, nested: { z: `s${i}` } }]));
  expect(read.imu_excluded).toEqual([8, 9].map((i) => [at(i), { x: i, y: i * 2.5 }]));
  expect(read.point).toEqual(range(0, 10).map((i) => [at(i, 1), point(i)]));
  expect(read.point_window).toEqual([2, 3, 4].map((i) => [at(i, 1), { label: `p${i}` }]));
  expect(read.df).toEqual({ columns: ["y"], y: [0, 2.5, 5], index: [at(0), at(1), at(2)] });
});
