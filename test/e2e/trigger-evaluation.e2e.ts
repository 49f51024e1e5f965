import type { Admin } from "kafkajs";
import { Client } from "pg";
import { TOPICS } from "@hangar/shared";
import {
  consumerCaughtUp,
  createDataset,
  kafkaAdmin,
  messagesOnTopic,
  startWithTenants,
  uploadFiles,
  waitFor,
  type ApiClient,
  type ExtraHeaders,
  type TestPlatform,
  type TestTenant,
  LEGACY_TRIGGERS,
} from "@hangar/test-harness";

// Trigger evaluation: completing an upload into a dataset publishes an upload-completed event
// (through a real Kafka broker here); the compute service evaluates the org's triggers for it,
// records one evaluation per trigger and upload, and creates Queued invocations with source
// Trigger, exactly once per dataset (for_each dataset) or per new file (for_each dataset_file),
// also under concurrent uploads and redelivered events.

const CONSUMER = "compute.trigger-evaluation";
let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let admin: Admin;
let db: Client;
let action: { name: string; digest: string };

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"], { kafka: true });
  admin = await kafkaAdmin();
  db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
  action = await post(alice.client, "/v1/actions", {
    name: "process",
    uri: "registry.example.com/process:1",
    parameters: [{ name: "threshold", default: "0.5" }],
  });
});
afterAll(async () => {
  await db?.end();
  await admin?.disconnect();
  await t?.close();
});

const topic = () => `${t.namespace}.${TOPICS.uploadCompleted}`;
const caughtUp = () => consumerCaughtUp(admin, `${t.namespace}.${CONSUMER}`, topic());

let counter = 0;
/** A name (and file-pattern stem) no other test uses, so each test's triggers ignore the others' files. */
function unique(prefix: string): string {
  counter += 1;
  return `${prefix}${counter}`;
}

async function post(client: ApiClient, path: string, body: unknown, headers?: ExtraHeaders): Promise<any> {
  const res = await client.post(path, body, headers);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

async function createTrigger(client: ApiClient, body: Record<string, unknown>): Promise<{ trigger_id: string; name: string }> {
  return post(client, "/v1/triggers", { action_name: action.name, for_each: "dataset", ...body }, LEGACY_TRIGGERS);
}

/** The trigger's invocations, oldest first, read as a client does (query_invocations). */
async function invocationsOf(client: ApiClient, triggerId: string): Promise<any[]> {
  const page = await post(client, "/v1/actions/invocations/query", {
    condition: { field: "provenance.source.source_id", comparator: "EQUALS", value: triggerId },
    sort_by: "created",
    sort_direction: "ASC",
  });
  return page.items;
}

/** The trigger's evaluations for a dataset, oldest first. */
async function evaluationsOf(client: ApiClient, name: string, datasetId: string): Promise<any[]> {
  const res = await client.get(`/v1/triggers/${name}/evaluations`);
  expect(res.status).toBe(200);
  return (res.body.data.items as any[]).filter((e) => e.data_source.data_source_id === datasetId).reverse();
}

/** Waits until the trigger has `count` finished evaluations for the dataset and returns them. */
async function settled(client: ApiClient, name: string, datasetId: string, count: number): Promise<any[]> {
  return waitFor(`${count} finished evaluations of ${name}`, async () => {
    const items = await evaluationsOf(client, name, datasetId);
    return items.length === count && items.every((e) => e.status !== "pending") ? items : undefined;
  });
}

const outcomes = (evaluations: any[]) => evaluations.map((e) => [e.status, e.outcome, e.outcome_reason]);

test("a dataset trigger waits for all its required inputs, then invokes its action once with the trigger's settings", async () => {
  const stem = unique("set");
  const trigger = await createTrigger(alice.client, {
    name: stem,
    required_inputs: [`${stem}-*.bag`, `${stem}.json`],
    additional_inputs: ["notes.txt"],
    parameter_values: { threshold: "0.9" },
    compute_requirement_overrides: { vCPU: 1024, memory: 4096 },
    container_parameter_overrides: { command: ["run"] },
    timeout: 600,
  });
  const datasetId = await createDataset(alice.client, stem);
  const first = await uploadFiles(alice.client, datasetId, { [`${stem}-1.bag`]: "bag" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 1))).toEqual([["evaluated", "skipped", "no_matching_files"]]);
  expect(await invocationsOf(alice.client, trigger.trigger_id)).toEqual([]);

  const second = await uploadFiles(alice.client, datasetId, { [`${stem}.json`]: "{}" });
  const evaluations = await settled(alice.client, stem, datasetId, 2);
  expect(evaluations[1]).toEqual({
    trigger_evaluation_id: expect.any(Number),
    trigger_id: trigger.trigger_id,
    data_source: { data_source_type: "Dataset", data_source_id: datasetId },
    data_constraint: { transaction_id: second.transactionId, file_id: null },
    evaluation_start: expect.any(String),
    evaluation_end: expect.any(String),
    status: "evaluated",
    status_detail: null,
    outcome: "invoked_action",
    outcome_reason: null,
    cause: "file_upload",
  });
  expect(evaluations[0].data_constraint.transaction_id).toBe(first.transactionId);
  const invocations = await invocationsOf(alice.client, trigger.trigger_id);
  expect(invocations).toHaveLength(1);
  expect(invocations[0]).toMatchObject({
    data_source: { data_source_type: "Dataset", data_source_id: datasetId },
    input_data: [`${stem}-*.bag`, `${stem}.json`, "notes.txt"],
    idempotency_id: `trigger:${trigger.trigger_id}:${datasetId}`,
    org_id: alice.orgId,
    last_status: 0,
    parameter_values: { threshold: "0.9" },
    compute_requirements: { vCPU: 1024, memory: 4096, gpu: false, storage: 21 },
    container_parameters: { command: ["run"], entry_point: [], env_vars: {}, workdir: null },
    timeout: 600,
    provenance: {
      action: { name: action.name, org_id: alice.orgId, digest: action.digest },
      source: { source_type: "Trigger", source_id: trigger.trigger_id },
    },
  });

  await uploadFiles(alice.client, datasetId, { [`${stem}-2.bag`]: "bag" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 3))[2]).toEqual(["evaluated", "skipped", "already_run"]);
  expect(await invocationsOf(alice.client, trigger.trigger_id)).toHaveLength(1);
});

test("two uploads completing at the same time invoke a dataset trigger once", async () => {
  const stem = unique("race");
  const trigger = await createTrigger(alice.client, { name: stem, required_inputs: [`${stem}-*.bag`] });
  const datasetId = await createDataset(alice.client, stem);
  const a = await uploadFiles(alice.client, datasetId, { [`${stem}-a.bag`]: "a" }, { complete: false });
  const b = await uploadFiles(alice.client, datasetId, { [`${stem}-b.bag`]: "b" }, { complete: false });
  const completed = await Promise.all([a, b].map((u) => alice.client.put(`/v1/files/upload/${u.transactionId}/complete`)));
  expect(completed.map((r) => r.status)).toEqual([200, 200]);
  const evaluations = await settled(alice.client, stem, datasetId, 2);
  expect(outcomes(evaluations).sort()).toEqual([
    ["evaluated", "invoked_action", null],
    ["evaluated", "skipped", "already_run"],
  ]);
  expect(await invocationsOf(alice.client, trigger.trigger_id)).toHaveLength(1);
});

test("a redelivered upload event changes nothing, even when the consumer has lost its record of it", async () => {
  const stem = unique("again");
  const perDataset = await createTrigger(alice.client, { name: stem, required_inputs: [`${stem}-*.bag`] });
  const perFile = await createTrigger(alice.client, { name: `${stem}-files`, for_each: "dataset_file", required_inputs: [`${stem}-*.bag`] });
  const datasetId = await createDataset(alice.client, stem);
  await uploadFiles(alice.client, datasetId, { [`${stem}-1.bag`]: "1", [`${stem}-2.bag`]: "2" });
  const before = { dataset: await settled(alice.client, stem, datasetId, 1), files: await settled(alice.client, `${stem}-files`, datasetId, 1) };
  await caughtUp();

  const published = await messagesOnTopic(admin, topic());
  // The data service publishes every upload event again (same event ids), as after a relay crash.
  await db.query("update data.outbox set published = null where topic = $1", [TOPICS.uploadCompleted]);
  t.platform.services.data.relay.wake();
  await waitFor("the duplicates", async () => ((await messagesOnTopic(admin, topic())) === published * 2 ? true : undefined));
  await caughtUp();
  // Again, after the consumer's processed-event records are gone: only the evaluations guard now.
  await db.query("delete from compute.processed_events where consumer = $1", [CONSUMER]);
  await db.query("update data.outbox set published = null where topic = $1", [TOPICS.uploadCompleted]);
  t.platform.services.data.relay.wake();
  await waitFor("the second duplicates", async () => ((await messagesOnTopic(admin, topic())) === published * 3 ? true : undefined));
  await caughtUp();

  expect(await evaluationsOf(alice.client, stem, datasetId)).toEqual(before.dataset);
  expect(await evaluationsOf(alice.client, `${stem}-files`, datasetId)).toEqual(before.files);
  expect(await invocationsOf(alice.client, perDataset.trigger_id)).toHaveLength(1);
  expect(await invocationsOf(alice.client, perFile.trigger_id)).toHaveLength(2);
});

test("a dataset_file trigger invokes once per new file that matches any required pattern, with that file as input", async () => {
  const stem = unique("file");
  const trigger = await createTrigger(alice.client, {
    name: stem,
    for_each: "dataset_file",
    required_inputs: [`${stem}-*.csv`, `${stem}-raw/`],
    additional_inputs: ["calibration.yaml"],
  });
  const datasetId = await createDataset(alice.client, stem);
  const files = { [`${stem}-a.csv`]: "a", [`nested/${stem}-b.csv`]: "b", [`${stem}-raw/x.bin`]: "x", [`${stem}-c.txt`]: "c" };
  await uploadFiles(alice.client, datasetId, files);
  expect(outcomes(await settled(alice.client, stem, datasetId, 1))).toEqual([["evaluated", "invoked_action", null]]);
  const invocations = await invocationsOf(alice.client, trigger.trigger_id);
  const byInput = (items: any[]) => items.map((i) => i.input_data).sort();
  expect(byInput(invocations)).toEqual([
    [`${stem}-a.csv`, "calibration.yaml"],
    [`${stem}-raw/x.bin`, "calibration.yaml"],
    [`nested/${stem}-b.csv`, "calibration.yaml"],
  ]);
  const recorded = await Promise.all(invocations.map((i) => alice.client.get(`/v1/files/record/path/${encodeURIComponent(i.input_data[0])}/association/${datasetId}`)));
  expect(invocations.map((i) => i.idempotency_id).sort()).toEqual(recorded.map((r) => `trigger:${trigger.trigger_id}:${r.body.data.file_id}`).sort());

  // A new version of a file that already ran does not run it again; a new file does.
  await uploadFiles(alice.client, datasetId, { [`${stem}-a.csv`]: "a2", [`${stem}-d.csv`]: "d" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 2))[1]).toEqual(["evaluated", "invoked_action", null]);
  await uploadFiles(alice.client, datasetId, { [`${stem}-a.csv`]: "a3", [`${stem}-e.txt`]: "e" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 3))[2]).toEqual(["evaluated", "skipped", "already_run"]);
  expect(byInput(await invocationsOf(alice.client, trigger.trigger_id))).toEqual([...byInput(invocations), [`${stem}-d.csv`, "calibration.yaml"]].sort());

  await uploadFiles(alice.client, datasetId, { [`${stem}-f.txt`]: "f" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 4))[3]).toEqual(["evaluated", "skipped", "no_matching_files"]);
});

test("a dataset condition is evaluated by the data service: not met skips (condition_not_met); once met, the trigger fires", async () => {
  const stem = unique("cond");
  const trigger = await createTrigger(alice.client, {
    name: stem,
    required_inputs: [`${stem}.bag`],
    condition: { operator: "AND", conditions: [{ field: "dataset.metadata.vehicle", comparator: "EQUALS", value: "v1" }, { field: "tags", comparator: "CONTAINS", value: "field" }] },
  });
  const datasetId = await createDataset(alice.client, stem);
  await uploadFiles(alice.client, datasetId, { [`${stem}.bag`]: "1" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 1))).toEqual([["evaluated", "skipped", "condition_not_met"]]);
  expect(await invocationsOf(alice.client, trigger.trigger_id)).toEqual([]);

  const updated = await alice.client.put(`/v1/datasets/${datasetId}`, { metadata_changeset: { put_fields: { vehicle: "v1" }, put_tags: ["field"] } });
  expect(updated.status).toBe(200);
  await uploadFiles(alice.client, datasetId, { "other.txt": "2" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 2))[1]).toEqual(["evaluated", "invoked_action", null]);
  expect(await invocationsOf(alice.client, trigger.trigger_id)).toHaveLength(1);
});

test("a dataset_file trigger's condition is tested per file, on file and dataset fields", async () => {
  const stem = unique("sized");
  const trigger = await createTrigger(alice.client, {
    name: stem,
    for_each: "dataset_file",
    required_inputs: [`${stem}-*`],
    condition: { operator: "AND", conditions: [{ field: "size", comparator: "GREATER_THAN", value: 3 }, { field: "dataset.name", comparator: "EQUALS", value: stem }] },
  });
  const datasetId = await createDataset(alice.client, stem);
  await uploadFiles(alice.client, datasetId, { [`${stem}-small`]: "ab", [`${stem}-large`]: "abcdef" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 1))).toEqual([["evaluated", "invoked_action", null]]);
  expect((await invocationsOf(alice.client, trigger.trigger_id)).map((i) => i.input_data)).toEqual([[`${stem}-large`]]);
  await uploadFiles(alice.client, datasetId, { [`${stem}-tiny`]: "a" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 2))[1]).toEqual(["evaluated", "skipped", "condition_not_met"]);
});

test("a condition the data service refuses fails the evaluation with the reason, without blocking the others", async () => {
  const stem = unique("refused");
  const broken = await createTrigger(alice.client, { name: stem, required_inputs: [`${stem}.bag`], condition: { field: "colour", comparator: "EQUALS", value: "red" } });
  const healthy = await createTrigger(alice.client, { name: `${stem}-ok`, required_inputs: [`${stem}.bag`] });
  const datasetId = await createDataset(alice.client, stem);
  await uploadFiles(alice.client, datasetId, { [`${stem}.bag`]: "1" });
  const [failed] = await settled(alice.client, stem, datasetId, 1);
  expect(failed).toMatchObject({ status: "failed", outcome: null, outcome_reason: null, evaluation_end: expect.any(String) });
  expect(failed.status_detail).toMatch(/colour/);
  expect(await invocationsOf(alice.client, broken.trigger_id)).toEqual([]);
  expect(outcomes(await settled(alice.client, `${stem}-ok`, datasetId, 1))).toEqual([["evaluated", "invoked_action", null]]);
  expect(await invocationsOf(alice.client, healthy.trigger_id)).toHaveLength(1);
});

test("a disabled trigger never fires (its evaluations say trigger_disabled); enabled again, it does", async () => {
  const stem = unique("off");
  const trigger = await createTrigger(alice.client, { name: stem, required_inputs: [`${stem}.bag`], enabled: false });
  const datasetId = await createDataset(alice.client, stem);
  await uploadFiles(alice.client, datasetId, { [`${stem}.bag`]: "1" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 1))).toEqual([["evaluated", "skipped", "trigger_disabled"]]);
  expect(await invocationsOf(alice.client, trigger.trigger_id)).toEqual([]);
  expect((await alice.client.put(`/v1/triggers/${stem}`, { enabled: true })).status).toBe(200);
  await uploadFiles(alice.client, datasetId, { "later.txt": "2" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 2))[1]).toEqual(["evaluated", "invoked_action", null]);
});

test("another org's uploads, uploads outside datasets and triggers without the file_upload cause start no evaluation", async () => {
  const stem = unique("scope");
  const trigger = await createTrigger(alice.client, { name: stem, required_inputs: [`${stem}.bag`] });
  const ingestOnly = await createTrigger(alice.client, { name: `${stem}-ingest`, required_inputs: [`${stem}.bag`], causes: ["file_ingest"] });
  const bobsDataset = await createDataset(bob.client, stem);
  await uploadFiles(bob.client, bobsDataset, { [`${stem}.bag`]: "b" });
  await uploadFiles(alice.client, alice.orgId, { [`${stem}.bag`]: "org" }, { associationType: "org" });
  const datasetId = await createDataset(alice.client, stem);
  await uploadFiles(alice.client, datasetId, { [`${stem}.bag`]: "a" });
  await settled(alice.client, stem, datasetId, 1);
  await caughtUp();

  const all = (await alice.client.get(`/v1/triggers/${stem}/evaluations`)).body.data.items;
  expect(all.map((e: any) => e.data_source.data_source_id)).toEqual([datasetId]);
  expect((await alice.client.get(`/v1/triggers/${stem}-ingest/evaluations`)).body.data.items).toEqual([]);
  expect((await invocationsOf(alice.client, trigger.trigger_id)).map((i) => i.data_source.data_source_id)).toEqual([datasetId]);
  expect(await invocationsOf(alice.client, ingestOnly.trigger_id)).toEqual([]);
  expect(await invocationsOf(bob.client, trigger.trigger_id)).toEqual([]);
});

test("a trigger reacting to dataset_metadata_update is evaluated when the dataset's fields change, not on uploads, and fires once", async () => {
  const stem = unique("meta");
  const trigger = await createTrigger(alice.client, {
    name: stem,
    required_inputs: [`${stem}.bag`],
    causes: ["dataset_metadata_update"],
    condition: { field: "metadata.ready", comparator: "EQUALS", value: true },
  });
  const datasetId = await createDataset(alice.client, stem);
  await uploadFiles(alice.client, datasetId, { [`${stem}.bag`]: "1" });
  await caughtUp();
  expect(await evaluationsOf(alice.client, stem, datasetId)).toEqual([]);

  const edit = async (body: Record<string, unknown>) => expect((await alice.client.put(`/v1/datasets/${datasetId}`, body)).status).toBe(200);
  await edit({ metadata_changeset: { put_fields: { ready: false } } });
  expect(outcomes(await settled(alice.client, stem, datasetId, 1))).toEqual([["evaluated", "skipped", "condition_not_met"]]);
  await edit({ metadata_changeset: { put_fields: { ready: true } } });
  await edit({ description: "ready now" });
  const evaluations = await settled(alice.client, stem, datasetId, 3);
  expect(outcomes(evaluations)).toEqual([
    ["evaluated", "skipped", "condition_not_met"],
    ["evaluated", "invoked_action", null],
    ["evaluated", "skipped", "already_run"],
  ]);
  expect(evaluations.map((e) => [e.cause, e.data_constraint])).toEqual(Array(3).fill(["dataset_metadata_update", null]));
  const invocations = await invocationsOf(alice.client, trigger.trigger_id);
  expect(invocations.map((i) => [i.data_source.data_source_id, i.last_status])).toEqual([[datasetId, 0]]);
});

test("file_metadata_update and file_ingest triggers are evaluated for the edited file, once per file", async () => {
  const stem = unique("filemeta");
  const reviewed = await createTrigger(alice.client, {
    name: stem,
    for_each: "dataset_file",
    required_inputs: [`${stem}-*.bag`],
    causes: ["file_metadata_update"],
    condition: { field: "metadata.reviewed", comparator: "EQUALS", value: true },
  });
  const ingested = await createTrigger(alice.client, { name: `${stem}-ingest`, for_each: "dataset_file", required_inputs: [`${stem}-*.bag`], causes: ["file_ingest"] });
  const datasetId = await createDataset(alice.client, stem);
  await uploadFiles(alice.client, datasetId, { [`${stem}-a.bag`]: "a", [`${stem}-b.bag`]: "b" });
  await caughtUp();
  expect(await evaluationsOf(alice.client, stem, datasetId)).toEqual([]);

  const fileId = async (name: string) => (await alice.client.get(`/v1/files/record/path/${name}/association/${datasetId}`)).body.data.file_id as string;
  const a = await fileId(`${stem}-a.bag`);
  const edit = async (id: string, body: Record<string, unknown>) => expect((await alice.client.put(`/v1/files/record/${id}`, body)).status).toBe(200);
  await edit(a, { metadata_changeset: { put_fields: { reviewed: false } } });
  expect(outcomes(await settled(alice.client, stem, datasetId, 1))).toEqual([["evaluated", "skipped", "condition_not_met"]]);
  await edit(a, { metadata_changeset: { put_fields: { reviewed: true } } });
  await edit(a, { description: "seen twice" });
  expect(outcomes(await settled(alice.client, stem, datasetId, 3))).toEqual([
    ["evaluated", "skipped", "condition_not_met"],
    ["evaluated", "invoked_action", null],
    ["evaluated", "skipped", "already_run"],
  ]);
  const invocations = await invocationsOf(alice.client, reviewed.trigger_id);
  expect(invocations.map((i) => i.input_data)).toEqual([[`${stem}-a.bag`]]);

  // Marking a file ingested fires the file_ingest trigger for it (and is no metadata edit).
  await edit(a, { ingestion_complete: true });
  expect(outcomes(await settled(alice.client, `${stem}-ingest`, datasetId, 1))).toEqual([["evaluated", "invoked_action", null]]);
  expect((await invocationsOf(alice.client, ingested.trigger_id)).map((i) => i.input_data)).toEqual([[`${stem}-a.bag`]]);
  expect(await evaluationsOf(alice.client, stem, datasetId)).toHaveLength(3);
});
