import { createDataset, startWithTenants, uploadFiles, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { sdkWorkspace, type SdkWorkspace } from "./sdk-fixtures";

// The /v2/topics calls of the 0.62 client (sdk-0.62-routes.md rows 47-50) made by the SDK itself:
// Topic.from_id, TopicSchema.from_id (schema and fields), Session.get_topic then the session-scoped
// Topic.set_unix_offset / clear_unix_offset, and the read plan Topic.get_data resolves first
// (`Topic.__resolve_read_plan`, parsed into the SDK's own ReadPlan model) with a session context
// and a file context. Topic.get_data itself, which decodes the plan's files with pyarrow, reads an
// ingested MCAP in mcap-topics-v2-sdk.e2e.ts.

let t: TestPlatform;
let alice: TestTenant;
let ws: SdkWorkspace;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["topics-v2-sdk"]);
  ws = await sdkWorkspace(t, "newest");
});
afterAll(async () => {
  await t?.close();
  await ws?.close();
});

const FLOW = String.raw`
import json, sys
from roboto.domain.topics import TopicSchema
from roboto.experimental.sessions import Session
from roboto.experimental.topics import FileContext, Topic

args = json.loads(sys.argv[1])
resolve = lambda topic, **kw: topic._Topic__resolve_read_plan(
    kw.get("start"), kw.get("end"), kw.get("include"), None, None, None, None, None, None)

topic = Topic.from_id(args["topic_id"])
schema = TopicSchema.from_id(args["schema_id"])
session = Session.from_id(args["session_id"])
scoped = session.get_topic("/imu")
before = resolve(scoped)
anchored = scoped.set_unix_offset(1_700_000_000_000_000_000)
repeated = scoped.set_unix_offset(1_700_000_000_000_000_000)
after = resolve(Session.from_id(args["session_id"]).get_topic("/imu"))
in_file = resolve(Topic.from_id(args["topic_id"], context=FileContext(file_id=args["file_id"])), include=[("pose",)])
cleared = scoped.clear_unix_offset()
print(json.dumps({
    "topic": topic.record.model_dump(mode="json"),
    "schema": {"id": schema.schema_id, "checksum": schema.checksum, "name": schema.name, "fields": sorted(list(f.path_in_schema) for f in schema.fields)},
    "before": before.model_dump(mode="json"),
    "anchored": [x.unix_epoch_offset_ns for x in anchored],
    "repeated": len(repeated),
    "after": after.model_dump(mode="json"),
    "in_file": in_file.model_dump(mode="json"),
    "cleared": [x.unix_epoch_offset_ns for x in cleared],
}))
`;

test("SDK 0.62 reads a topic's identity, schema and read plans, and anchors its data in a session", async () => {
  const datasetId = await createDataset(alice.client, "topics-v2-sdk");
  await uploadFiles(alice.client, datasetId, { "run.mcap": "bytes" });
  const file = (await alice.client.get(`/v1/files/record/path/run.mcap/association/${datasetId}`)).body.data;
  const fields = [
    { name: "x", path: ["x"], data_type: "float64", canonical_data_type: "number" },
    { name: "pose", path: ["pose"], data_type: "object", canonical_data_type: "object" },
    { name: "z", path: ["pose", "z"], data_type: "float64", canonical_data_type: "number" },
  ];
  const registered = await alice.client.post(`/v1/files/id/${file.file_id}/topics`, {
    topics: [
      {
        topic_name: "/imu",
        topic_schema: { name: "Imu", fields },
        timeline_sources: [{ kind: "mcap_log_time", min_file_timestamp_ns: 1_000, max_file_timestamp_ns: 2_000 }],
        representations: [{ file_id: file.file_id, storage_format: "mcap" }],
      },
    ],
  });
  const topicId = registered.body.data.responses[0].data.topic_id;
  const checksum = (await alice.client.get(`/v1/topics/id/${topicId}`)).body.data.schema_checksum;
  const sessionId = (await alice.client.post("/v1/sessions", { name: "run" })).body.data.session_id;
  expect((await alice.client.post(`/v1/sessions/id/${sessionId}/files`, { files: [{ file_id: file.file_id }] })).status).toBe(200);

  const out = await ws.sdk("flow", FLOW, { topic_id: topicId, schema_id: `sc_${checksum}`, session_id: sessionId, file_id: file.file_id }, alice.token);

  expect(out.topic).toMatchObject({ topic_id: topicId, name: "/imu", org_id: alice.orgId });
  expect(out.schema).toEqual({ id: `sc_${checksum}`, checksum, name: "Imu", fields: [["pose"], ["pose", "z"], ["x"]] });
  const partition = (offset: number, window: [number, number]) => ({
    topic_part_id: expect.stringMatching(/^tpp_/),
    time_offset_ns: offset,
    window: { start: window[0], end: window[1] },
    timestamp: { kind: "message_log_time", field: null, unit: null },
    data_range: null,
    scan_tasks: [{ subtree: null, precedence: 0, format: "mcap", transformations: [], object: { fs_node_id: file.file_id, size_bytes: 5 }, topic_name: "/imu" }],
    fs_node_id: file.file_id,
  });
  // The session context's window is the session's bounds: the data's, before and after the anchor.
  expect(out.before).toMatchObject({ topic_id: topicId, window: { start: 1_000, end: 2_000 }, schema: { schema_id: `sc_${checksum}`, checksum }, projection: { all: true } });
  expect(out.before.partitions).toEqual([partition(0, [1_000, 2_000])]);
  const anchor = 1_700_000_000_000_000_000;
  expect(out.anchored).toEqual([anchor]);
  expect(out.repeated).toBe(0);
  expect(out.after.window).toEqual({ start: anchor + 1_000, end: anchor + 2_000 });
  expect(out.after.partitions).toEqual([partition(anchor, [anchor + 1_000, anchor + 2_000])]);
  // A file context leaves the bounds to the server: the span of the topic's data in the file.
  expect(out.in_file.window).toEqual({ start: anchor + 1_000, end: anchor + 2_000 });
  expect(out.in_file.projection.fields.map((f: any) => f.path)).toEqual([["pose"], ["pose", "z"]]);
  expect(out.cleared).toEqual([0]);
});
