import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { zstdDecompressSync } from "node:zlib";
import { McapIndexedReader, McapWriter, TempBuffer } from "@mcap/core";
import type { IReadable } from "@mcap/core";
import { createDirectorySink, ingestMcap, openFileSource, type IngestManifest } from "@hangar/ingest";
import { BUILTIN_ACTION_OWNER_ORG, MCAP_INGESTION_ACTION } from "@hangar/shared";
import { createDataset, LEGACY_TRIGGERS, startWithTenants, uploadFiles, waitFor, type ApiClient, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { writeFixture, type Fixture } from "../../ingest/src/mcap.fixture";

// The built-in MCAP ingestion (issue 12, "MCAP ingestion, built in"), invoked directly on a file
// through the gateway as any org invokes an Action Hub action, and run by the process runner:
// topics, message paths and `mcap` representations as the engine's manifest describes them, each
// representation a derived MCAP of only its channel, kept by the platform (hidden from listings
// and queries, readable by id and signed URL, rewritten on re-ingestion, removed with its source);
// a truncated file fails the invocation with a clear log line and registers nothing.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let datasetId: string;
let fixture: Fixture;
let manifest: IngestManifest;

const FINAL = [5, 997, 998, 999];
const q = (text: string) => encodeURIComponent(text);
const builtin = { "X-Roboto-Resource-Owner-Id": BUILTIN_ACTION_OWNER_ORG };

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["mcap-ingest-alice", "mcap-ingest-bob"], { runner: true });
  // These tests invoke the action themselves: the org's default rule, which would ingest each
  // upload too (test/e2e/mcap-default-rule.e2e.ts), is given now and switched off.
  for (const rule of (await alice.client.post("/v1/ingestion-rules/defaults")).body.data.items) {
    expect((await alice.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, { auto_ingest: false })).status).toBe(200);
  }
  datasetId = await createDataset(alice.client, "mcap-ingestion");
  fixture = await writeFixture("indexed", 50);
  manifest = await manifestOf(fixture.bytes);
});
afterAll(() => t?.close());

/** What the engine itself says about the bytes: the manifest the platform must end up agreeing with. */
async function manifestOf(bytes: Uint8Array): Promise<IngestManifest> {
  const dir = mkdtempSync(path.join(tmpdir(), "mcap-ingestion-e2e-"));
  try {
    writeFileSync(path.join(dir, "in.mcap"), bytes);
    const source = await openFileSource(path.join(dir, "in.mcap"));
    return await ingestMcap(source, createDirectorySink(path.join(dir, "out"))).finally(() => source.close());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function uploadOne(client: ApiClient, relativePath: string, bytes: Uint8Array): Promise<string> {
  await uploadFiles(client, datasetId, { [relativePath]: Buffer.from(bytes) });
  return (await client.get(`/v1/files/record/path/${q(relativePath)}/association/${datasetId}`)).body.data.file_id;
}

/** Invokes the built-in action on one file of the dataset and waits for the invocation to end. */
async function ingest(client: ApiClient, relativePath: string, dataset = datasetId): Promise<{ invocation_id: string; last_status: number }> {
  const invoked = await client.post(
    `/v1/actions/${MCAP_INGESTION_ACTION.name}/invoke`,
    { data_source_id: dataset, data_source_type: "Dataset", input_data: [relativePath], invocation_source: "Manual" },
    builtin,
  );
  expect(invoked.status).toBe(200);
  const id: string = invoked.body.data.invocation_id;
  return waitFor(
    `ingestion of ${relativePath}`,
    async () => {
      const got = (await client.get(`/v1/actions/invocations/${id}`)).body.data;
      return FINAL.includes(got.last_status) ? got : undefined;
    },
    120_000,
    250,
  );
}

async function logsOf(invocationId: string): Promise<string[]> {
  const logs = await alice.client.get(`/v1/actions/invocations/${invocationId}/logs`);
  return logs.body.data.items.map((item: { log: string }) => item.log);
}

async function topicsOf(fileId: string): Promise<any[]> {
  const res = await alice.client.get(`/v1/topics/association/${q(`file:${fileId}`)}`);
  expect(res.status).toBe(200);
  return res.body.data.items;
}

/** The file ids of the topic's `mcap` representations. */
async function representationFiles(topicId: string): Promise<string[]> {
  const res = await alice.client.get(`/v1/topics/id/${topicId}/message-path/representations/mcap`);
  expect(res.status).toBe(200);
  const files = res.body.data.map((entry: { representation: { association: { association_id: string } } }) => entry.representation.association.association_id);
  return [...new Set<string>(files)];
}

/** Every message of a derived file, by channel topic, read with @mcap/core through the signed URL. */
async function readDerived(fileId: string): Promise<Map<string, Uint8Array[]>> {
  const signed = await alice.client.get(`/v1/files/${fileId}/signed-url`);
  expect(signed.status).toBe(200);
  const bytes = new Uint8Array(await (await fetch(signed.body.data.url)).arrayBuffer());
  const readable: IReadable = { size: async () => BigInt(bytes.byteLength), read: async (offset, length) => bytes.subarray(Number(offset), Number(offset + length)) };
  const reader = await McapIndexedReader.Initialize({ readable, decompressHandlers: { zstd: (data) => zstdDecompressSync(data) } });
  const byTopic = new Map<string, Uint8Array[]>();
  for await (const message of reader.readMessages()) {
    const topic = reader.channelsById.get(message.channelId)!.topic;
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), message.data]);
  }
  return byTopic;
}

test("the action is on the Action Hub of the platform's org, readable from any org", async () => {
  const res = await bob.client.get(`/v1/actions/${MCAP_INGESTION_ACTION.name}`, builtin);
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ name: MCAP_INGESTION_ACTION.name, org_id: BUILTIN_ACTION_OWNER_ORG, accessibility: "action_hub" });
});

describe("an ingested MCAP file", () => {
  let fileId: string;
  let topics: any[];

  beforeAll(async () => {
    fileId = await uploadOne(alice.client, "logs/run.mcap", fixture.bytes);
    const done = await ingest(alice.client, "logs/run.mcap");
    expect(done.last_status).toBe(5);
    topics = await topicsOf(fileId);
  });

  test("has one topic per channel, with the schema, checksum, count, times and message paths of the manifest", () => {
    expect(topics.map((topic) => topic.topic_name).sort()).toEqual(manifest.topics.map((topic) => topic.topic_name).sort());
    for (const expected of manifest.topics) {
      const topic = topics.find((candidate) => candidate.topic_name === expected.topic_name)!;
      const schema = fixture.schemas.get(expected.topic_name)!;
      expect(topic).toMatchObject({
        schema_name: schema.name,
        schema_checksum: createHash("sha256").update(schema.data).digest("hex"),
        message_count: 50,
        start_time: Number(fixture.messages.get(expected.topic_name)![0]!.logTime),
        end_time: Number(fixture.messages.get(expected.topic_name)![49]!.logTime),
      });
      const paths = topic.message_paths.map((p: any) => [p.message_path, p.data_type, p.canonical_data_type]).sort();
      expect(paths).toEqual(expected.topic_schema.fields.map((f) => [f.path.join("."), f.data_type, f.canonical_data_type]).sort());
    }
  });

  test("is marked ingested", async () => {
    const file = await alice.client.get(`/v1/files/record/${fileId}`);
    expect(file.body.data.ingestion_status).toBe("ingested");
  });

  test("each topic's mcap representation is a derived file holding exactly that channel's messages", async () => {
    for (const topic of topics) {
      const files = await representationFiles(topic.topic_id);
      expect(files).toHaveLength(1);
      expect(files[0]).not.toBe(fileId);
      const file = await alice.client.get(`/v1/files/record/${files[0]}`);
      expect(file.status).toBe(200);
      const messages = await readDerived(files[0]!);
      expect([...messages.keys()]).toEqual([topic.topic_name]);
      expect(messages.get(topic.topic_name)!.map((data) => Buffer.from(data).toString("hex"))).toEqual(
        fixture.messages.get(topic.topic_name)!.map((message) => Buffer.from(message.data).toString("hex")),
      );
    }
  });

  test("the derived files stay out of the dataset's listings and the org's file queries, and out of other orgs' reach", async () => {
    const listed = await alice.client.post(`/v1/datasets/${datasetId}/files/query`, {});
    expect(listed.body.data.items.map((f: { relative_path: string }) => f.relative_path)).toEqual(["logs/run.mcap"]);
    const queried = await alice.client.post(`/v1/files/query`, {});
    expect(queried.status).toBe(200);
    expect(queried.body.data.items.map((f: { relative_path: string }) => f.relative_path)).toEqual(["logs/run.mcap"]);
    expect(queried.body.data.total_count).toBe(1);
    const root = await alice.client.get(`/v1/datasets/${datasetId}/directory/${q("/")}?show_hidden_files=true`);
    expect(root.status).toBe(200);
    expect(JSON.stringify(root.body.data)).not.toContain(".hangar");
    const [derived] = await representationFiles(topics[0].topic_id);
    expect((await bob.client.get(`/v1/files/record/${derived}`)).status).toBe(404);
  });

  test("re-ingesting rewrites the same topics and derived files, never duplicating them", async () => {
    const before = new Map(await Promise.all(topics.map(async (topic) => [topic.topic_id, await representationFiles(topic.topic_id)] as const)));
    const versionBefore = (await alice.client.get(`/v1/files/record/${before.values().next().value![0]}`)).body.data.version;
    expect((await ingest(alice.client, "logs/run.mcap")).last_status).toBe(5);
    const after = await topicsOf(fileId);
    expect(after.map((topic) => topic.topic_id).sort()).toEqual([...before.keys()].sort());
    for (const topic of after) {
      expect(await representationFiles(topic.topic_id)).toEqual(before.get(topic.topic_id));
      expect(topic.message_count).toBe(50);
    }
    const rewritten = (await alice.client.get(`/v1/files/record/${before.values().next().value![0]}`)).body.data;
    expect(rewritten.version).toBeGreaterThan(versionBefore);
    const listed = await alice.client.post(`/v1/datasets/${datasetId}/files/query`, {});
    expect(listed.body.data.items.map((f: { relative_path: string }) => f.relative_path)).toEqual(["logs/run.mcap"]);
  });

  test("deleting the source file deletes its derived files and topics", async () => {
    const derived = (await Promise.all(topics.map((topic) => representationFiles(topic.topic_id)))).flat();
    expect((await alice.client.delete(`/v1/files/${fileId}`)).status).toBe(200);
    for (const id of derived) expect((await alice.client.get(`/v1/files/record/${id}`)).status).toBe(404);
    expect((await alice.client.get(`/v1/topics/id/${topics[0].topic_id}`)).status).toBe(404);
  });
});

test("a truncated MCAP fails the invocation with a clear log line; the file stays available and nothing is registered", async () => {
  const truncated = fixture.bytes.subarray(0, Math.floor(fixture.bytes.byteLength * 0.6));
  const fileId = await uploadOne(alice.client, "logs/cut.mcap", truncated);
  const done = await ingest(alice.client, "logs/cut.mcap");
  expect(done.last_status).toBe(998);
  expect((await logsOf(done.invocation_id)).some((line) => line.startsWith("ingestion of logs/cut.mcap failed: "))).toBe(true);
  const file = await alice.client.get(`/v1/files/record/${fileId}`);
  expect(file.status).toBe(200);
  expect(file.body.data.ingestion_status).not.toBe("ingested");
  expect(await topicsOf(fileId)).toEqual([]);
  const derived = await alice.client.get(`/v1/files/record/path/${q(`.hangar/derived/${fileId}/channel-1.mcap`)}/association/${datasetId}`);
  expect(derived.status).toBe(404);
});

test("deleting a dataset deletes the derived files of its ingested files", async () => {
  const other = await createDataset(alice.client, "mcap-ingestion-doomed");
  await uploadFiles(alice.client, other, { "a.mcap": Buffer.from(fixture.bytes) });
  expect((await ingest(alice.client, "a.mcap", other)).last_status).toBe(5);
  const sourceId = (await alice.client.get(`/v1/files/record/path/a.mcap/association/${other}`)).body.data.file_id;
  const [topic] = await topicsOf(sourceId);
  const [derived] = await representationFiles(topic.topic_id);
  expect((await alice.client.delete(`/v1/datasets/${other}`)).status).toBe(200);
  expect((await alice.client.get(`/v1/files/record/${derived}`)).status).toBe(404);
});

test("uploading the derived files is no upload event: a trigger on **/*.mcap sees the source's upload and nothing of the ingestion's", async () => {
  const dataset = await createDataset(alice.client, "mcap-ingestion-events");
  expect((await alice.client.post("/v1/actions", { name: "noop", container_parameters: { command: ["node", "-e", ""] } })).status).toBe(200);
  const trigger = await alice.client.post("/v1/triggers", { name: "on-mcap", action_name: "noop", for_each: "dataset_file", required_inputs: ["**/*.mcap"] }, LEGACY_TRIGGERS);
  expect(trigger.status).toBe(200);
  const evaluations = async () => (await alice.client.get(`/v1/triggers/on-mcap/evaluations`)).body.data.items as { status: string }[];
  await uploadFiles(alice.client, dataset, { "drive.mcap": Buffer.from(fixture.bytes) });
  await waitFor("the source upload's evaluation", async () => ((await evaluations()).length === 1 ? true : undefined));
  expect((await ingest(alice.client, "drive.mcap", dataset)).last_status).toBe(5);
  // Events of one dataset are delivered in order: once a later upload's evaluation is there, an
  // event of the ingestion's upload would have been evaluated before it.
  await uploadFiles(alice.client, dataset, { "later.txt": "after the ingestion" });
  const after = await waitFor("the later upload's evaluation", async () => {
    const items = await evaluations();
    return items.length >= 2 && items.every((e) => e.status === "evaluated") ? items : undefined;
  });
  expect(after).toHaveLength(2);
});

/** An MCAP with one JSON channel, `/status`, of `count` messages (and a second channel `alsoTopic` of one, when named). */
async function oneChannelMcap(count: number, alsoTopic?: string): Promise<Uint8Array> {
  const buffer = new TempBuffer();
  const writer = new McapWriter({ writable: buffer });
  await writer.start({ profile: "", library: "mcap-ingestion-e2e" });
  const schemaId = await writer.registerSchema({ name: "Status", encoding: "jsonschema", data: new TextEncoder().encode(JSON.stringify({ type: "object", properties: { ok: { type: "boolean" } } })) });
  const channelId = await writer.registerChannel({ schemaId, topic: "/status", messageEncoding: "json", metadata: new Map() });
  for (let i = 0; i < count; i++) {
    await writer.addMessage({ channelId, sequence: i, logTime: 1_700_000_000_000_000_000n + BigInt(i), publishTime: 0n, data: new TextEncoder().encode(JSON.stringify({ ok: i % 2 === 0 })) });
  }
  if (alsoTopic !== undefined) {
    const also = await writer.registerChannel({ schemaId, topic: alsoTopic, messageEncoding: "json", metadata: new Map() });
    await writer.addMessage({ channelId: also, sequence: 0, logTime: 1_700_000_000_000_000_000n, publishTime: 0n, data: new TextEncoder().encode(JSON.stringify({ ok: true })) });
  }
  await writer.end();
  return buffer.get();
}

test("re-ingesting a new version of the file replaces its topics: those it no longer has go, with their derived files", async () => {
  const fileId = await uploadOne(alice.client, "logs/changing.mcap", fixture.bytes);
  expect((await ingest(alice.client, "logs/changing.mcap")).last_status).toBe(5);
  const before = await topicsOf(fileId);
  const derivedBefore = (await Promise.all(before.map((topic) => representationFiles(topic.topic_id)))).flat();
  expect(derivedBefore).toHaveLength(3);

  expect(await uploadOne(alice.client, "logs/changing.mcap", await oneChannelMcap(7))).toBe(fileId);
  expect((await ingest(alice.client, "logs/changing.mcap")).last_status).toBe(5);
  const after = await topicsOf(fileId);
  expect(after.map((topic) => [topic.topic_name, topic.message_count])).toEqual([["/status", 7]]);
  const [current] = await representationFiles(after[0].topic_id);
  expect((await readDerived(current!)).get("/status")).toHaveLength(7);
  for (const id of derivedBefore.filter((id) => id !== current)) expect((await alice.client.get(`/v1/files/record/${id}`)).status).toBe(404);
  for (const topic of before) expect((await alice.client.get(`/v1/topics/id/${topic.topic_id}`)).status).toBe(404);
});

test("a failed re-ingestion leaves the earlier ingestion's topics and derived files in place and removes only what it created", async () => {
  const fileId = await uploadOne(alice.client, "logs/kept.mcap", await oneChannelMcap(5));
  expect((await ingest(alice.client, "logs/kept.mcap")).last_status).toBe(5);
  const [before] = await topicsOf(fileId);
  const derived = await representationFiles(before.topic_id);
  expect(derived).toHaveLength(1);

  // A second channel whose name is over register_file_topics' limit: every derived file is uploaded, then registration is refused.
  const failing = await oneChannelMcap(7, `/${"x".repeat(1200)}`);
  const createdName = (await manifestOf(failing)).topics.find((topic) => topic.topic_name !== "/status")!.derived_file;
  expect(await uploadOne(alice.client, "logs/kept.mcap", failing)).toBe(fileId);
  const failed = await ingest(alice.client, "logs/kept.mcap");
  expect(failed.last_status).not.toBe(5);
  expect((await logsOf(failed.invocation_id)).some((line) => line.startsWith("ingestion of logs/kept.mcap failed: "))).toBe(true);

  const after = await topicsOf(fileId);
  expect(after.map((topic) => [topic.topic_id, topic.topic_name, topic.message_count])).toEqual([[before.topic_id, "/status", 5]]);
  expect(await representationFiles(before.topic_id)).toEqual(derived);
  expect((await alice.client.get(`/v1/files/record/${derived[0]}`)).status).toBe(200);
  const created = await alice.client.get(`/v1/files/record/path/${q(`.hangar/derived/${fileId}/${createdName}`)}/association/${datasetId}`);
  expect(created.status).toBe(404);
});
