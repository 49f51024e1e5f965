import { createDataset, startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { ok } from "./invocation-fixtures";
import { imuRecordingScript, sdkWorkspace, type SdkRelease, type SdkWorkspace } from "./sdk-fixtures";

// Event.get_data with the public Python SDK itself, in both releases (issue 12): a script records an
// MCAP (one JSON channel) and uploads it; the test registers the file's topic with
// register_file_topics (schema fields as message paths, an mcap_log_time source, the file as its
// mcap representation) and marks an event on the topic; `Event.get_data()` then returns exactly the
// messages inside the event's time range (which the SDK reads end-exclusive), and message-path
// filters apply.

let t: TestPlatform;
let alice: TestTenant;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["events-sdk-alice"]);
});
afterAll(() => t?.close());

/** Ten messages on channel `/imu`: `{"x": i, "nested": {"z": f"s{i}"}}` for message i. */
const RECORD = imuRecordingScript(`{"x": i, "nested": {"z": f"s{i}"}}`);

const READ = String.raw`
import json, sys
from roboto.domain.events import Event
args = json.loads(sys.argv[1])
event = Event.from_id(args["event_id"])
everything = [[t, r] for t, r in event.get_data()]
only_x = [[t, r] for t, r in event.get_data(message_paths_include=["x"])]
print(json.dumps({"everything": everything, "only_x": only_x}))
`;

const SCHEMA = {
  name: "Imu",
  fields: [
    { name: "x", data_type: "integer", canonical_data_type: "number" },
    { name: "nested", data_type: "object", canonical_data_type: "object" },
    { path: ["nested", "z"], data_type: "string", canonical_data_type: "string" },
  ],
};

describe.each<SdkRelease>(["pinned", "newest"])("Event.get_data with the %s SDK", (release) => {
  let ws: SdkWorkspace;
  beforeAll(async () => {
    ws = await sdkWorkspace(t, release);
  });
  afterAll(() => ws?.close());

  test("returns the messages of a topic registered by register_file_topics inside the event's time range", async () => {
    const datasetId = await createDataset(alice.client, `events-sdk-${release}`);
    const { file_id: fileId } = await ws.sdk("record", RECORD, { dataset_id: datasetId }, alice.token);
    const registered = ok(
      await alice.client.post(`/v1/files/id/${fileId}/topics`, {
        topics: [
          {
            topic_name: "/imu",
            topic_schema: SCHEMA,
            timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: 1_000_000_000, max_file_timestamp_ns: 1_900_000_000 }],
            representations: [{ file_id: fileId, storage_format: "mcap" }],
          },
        ],
      }),
    );
    const topicId = registered.responses[0].data.topic_id;
    const event = ok(
      await alice.client.post("/v1/events/create", {
        name: "middle",
        start_time: 1_300_000_000,
        end_time: 1_500_000_000,
        associations: [{ association_id: topicId, association_type: "topic" }],
      }),
    );
    const read = await ws.sdk("read", READ, { event_id: event.event_id }, alice.token);
    // The SDK reads an event's data over [start_time, end_time): the message at 1.5 s is outside.
    const at = (i: number) => 1_000_000_000 + i * 100_000_000;
    expect(read.everything).toEqual([3, 4].map((i) => [at(i), { x: i, nested: { z: `s${i}` } }]));
    expect(read.only_x).toEqual([3, 4].map((i) => [at(i), { x: i }]));
  });
});
