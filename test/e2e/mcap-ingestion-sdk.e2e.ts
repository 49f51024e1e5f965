import { createDataset, createTenant, startWithTenants, waitFor, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { at, imu, point, range, RECORD_MCAP } from "./mcap-recording";
import { perRelease, sdkWorkspace, type SdkWorkspace } from "./sdk-fixtures";

// The built-in MCAP ingestion with the public Python SDK, both releases (issue 12): a script records
// an MCAP with the Python `mcap` writer (a JSON channel `/imu` and a ROS 2 channel `/point` written
// with `mcap_ros2`) and uploads it with the SDK; the org's default ingestion rule runs the built-in
// action on it, nothing invoked by hand; then the SDK finds
// each topic on the file and `Topic.get_data()` / `get_data_as_df()` with message-path
// include/exclude and a time window return exactly the messages written, read from the derived
// per-topic representation files.

// Two Python processes (importing roboto and pandas) and an ingestion run take about 40 s alone on
// this 2-core machine, past jest's 60 s under a loaded run.
jest.setTimeout(240_000);

let t: TestPlatform;
const workspaces: SdkWorkspace[] = [];

beforeAll(async () => {
  [t] = await startWithTenants([], { runner: true });
});
afterAll(async () => {
  await t?.close();
  await Promise.all(workspaces.map((w) => w.close()));
});


/** Reads both topics of the ingested file back through the SDK, as rows and as a data frame. */
const READ = String.raw`
import json, sys
from roboto import File
args = json.loads(sys.argv[1])
file = File.from_id(args["file_id"])
imu = file.get_topic("/imu")
point = file.get_topic("/point")
rows = lambda data: [[t, r] for t, r in data]
df = imu.get_data_as_df(message_paths_include=["y"], start_time=1_000_000_000, end_time=1_300_000_000)
print(json.dumps({
    "imu": rows(imu.get_data()),
    "imu_window": rows(imu.get_data(message_paths_include=["x", "nested.z"], start_time=1_200_000_000, end_time=1_500_000_000)),
    "imu_excluded": rows(imu.get_data(message_paths_exclude=["nested"], start_time=1_800_000_000)),
    "point": rows(point.get_data()),
    "point_window": rows(point.get_data(message_paths_include=["label"], start_time=1_200_000_000, end_time=1_500_000_000)),
    "point_excluded": rows(point.get_data(message_paths_exclude=["x", "y"], start_time=1_800_000_000)),
    "df": {"columns": list(df.columns), "y": df["y"].tolist(), "index": [int(ts.value) for ts in df.index]},
}))
`;


let ws: SdkWorkspace;
let alice: TestTenant;

const sdkTest = perRelease(
  async (release) => {
    const workspace = await sdkWorkspace(t, release);
    workspaces.push(workspace);
    return { ws: workspace, alice: await createTenant(t, `mcap-sdk-${release}`) };
  },
  (context) => ({ ws, alice } = context),
);

sdkTest("an MCAP recorded with the Python writers and uploaded with the SDK is ingested by the default rule and read back exactly", async () => {
  const datasetId = await createDataset(alice.client, "mcap-ingestion-sdk");
  const { file_id: fileId } = await ws.sdk("record", RECORD_MCAP, { dataset_id: datasetId }, alice.token);
  // No action written and nothing invoked: the org's default ingestion rule ingests the upload.
  await waitFor("the default rule's ingestion", async () => {
    const got = (await alice.client.get(`/v1/files/record/${fileId}`)).body.data;
    return got.ingestion_status === "ingested" ? true : undefined;
  }, 120_000, 250);

  const read = await ws.sdk("read", READ, { file_id: fileId }, alice.token);
  expect(read.imu).toEqual(range(0, 10).map((i) => [at(i), imu(i)]));
  expect(read.imu_window).toEqual([2, 3, 4].map((i) => [at(i), { x: i, nested: { z: `s${i}` } }]));
  expect(read.imu_excluded).toEqual([8, 9].map((i) => [at(i), { x: i, y: i * 2.5 }]));
  expect(read.point).toEqual(range(0, 10).map((i) => [at(i, 1), point(i)]));
  expect(read.point_window).toEqual([2, 3, 4].map((i) => [at(i, 1), { label: `p${i}` }]));
  expect(read.point_excluded).toEqual([8, 9].map((i) => [at(i, 1), { label: `p${i}` }]));
  expect(read.df).toEqual({ columns: ["y"], y: [0, 2.5, 5], index: [at(0), at(1), at(2)] });
});
