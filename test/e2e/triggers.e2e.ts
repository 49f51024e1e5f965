import {
  apiClient,
  createDataset,
  createTenant,
  expectBadRequest,
  expectError,
  startWithTenants,
  uploadFiles,
  waitFor,
  type ApiClient,
  type ApiResponse,
  type TestPlatform,
  type TestTenant,
  LEGACY_TRIGGERS,
} from "@hangar/test-harness";

// Triggers through the gateway: create_trigger (POST /v1/triggers) and the client SDK's get, update
// and delete (GET|PUT|DELETE /v1/triggers/{name}), query_triggers (POST /v1/triggers/query, next
// page via body `after`), and the evaluation listings of a trigger (GET /v1/triggers/{name}/evaluations)
// and of a dataset (GET /v1/triggers/dataset/id/{dataset_id}/evaluations), paged with `limit` and
// `page_token`. Evaluation itself is covered by trigger-evaluation.e2e.ts.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let plain: { name: string; digest: string };
let tunable: { name: string; digest: string };

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
  // Alice administers her org, so she may name its service user as a trigger's runs-as user.
  await joinOrg(alice.orgId, ROBOT, { is_service_user: true });
  await grantRoles(alice.orgId, alice.userId, ["admin"]);
  plain = await createAction(alice.client, { name: "plain" });
  tunable = await createAction(alice.client, {
    name: "tunable",
    parameters: [{ name: "threshold", default: "0.5" }, { name: "mode", required: true }],
  });
});
afterAll(() => t?.close());

/** A service user of alice's org that her triggers may run as. */
const ROBOT = "robot-service@example.com";

/** Adds a user to an org as the bootstrap admin (creating it). */
async function joinOrg(orgId: string, userId: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await t.admin.post("/v1/users", { user_id: userId, org_id: orgId, ...extra });
  if (res.status !== 200) throw new Error(`create user failed: ${JSON.stringify(res.body)}`);
}

async function grantRoles(orgId: string, userId: string, roles: string[]): Promise<void> {
  const res = await t.admin.put(`/v1/orgs/id/${orgId}/users/id/${encodeURIComponent(userId)}`, { add_roles: roles });
  if (res.status !== 200) throw new Error(`grant roles failed: ${JSON.stringify(res.body)}`);
}

/** A new member of `orgId` with `roles` besides `user`, and its client. */
async function newMember(orgId: string, label: string, roles: string[] = []): Promise<{ userId: string; client: ApiClient }> {
  const userId = `${unique(label)}@example.com`;
  await joinOrg(orgId, userId);
  if (roles.length > 0) await grantRoles(orgId, userId, roles);
  const token = await t.admin.post("/v1/tokens", { name: "test", expiry_days: 1 }, { "X-Service-User-Id": userId });
  if (token.status !== 200) throw new Error(`create token failed: ${JSON.stringify(token.body)}`);
  return { userId, client: apiClient(t.url, token.body.data.secret) };
}

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

let counter = 0;
/** A trigger name no other test uses. */
function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

async function createAction(client: ApiClient, body: Record<string, unknown>): Promise<{ name: string; digest: string }> {
  const res = await client.post("/v1/actions", body);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

/** The smallest valid create request. */
function minimal(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, action_name: plain.name, for_each: "dataset", required_inputs: ["*.bag"], ...extra };
}

async function createTrigger(client: ApiClient, body: Record<string, unknown>): Promise<any> {
  const res = await client.post("/v1/triggers", body, LEGACY_TRIGGERS);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

async function triggerCount(client: ApiClient): Promise<number> {
  return (await client.post("/v1/triggers/query", {})).body.data.total_count;
}

/** The record of `minimal(name)` created by alice. */
function minimalRecord(name: string): Record<string, unknown> {
  return withModelView({
    trigger_id: expect.stringMatching(/^tr_[0-9a-z]{20}$/),
    name,
    org_id: alice.orgId,
    created: ISO,
    created_by: alice.userId,
    modified: ISO,
    modified_by: alice.userId,
    action: { name: plain.name, digest: null, owner: alice.orgId },
    required_inputs: ["*.bag"],
    service_user_id: alice.userId,
    for_each: "dataset",
    enabled: true,
    parameter_values: {},
    additional_inputs: [],
    causes: ["file_upload"],
    compute_requirement_overrides: null,
    container_parameter_overrides: null,
    condition: null,
    timeout: null,
  });
}

const CAUSE_EVENTS: Record<string, string> = {
  file_upload: "dataset.upload_completed",
  file_ingest: "file.ingested",
  dataset_metadata_update: "dataset.metadata_updated",
  file_metadata_update: "file.metadata_updated",
};

/**
 * A record with the 0.62 view every trigger also carries (sdk-0.62-routes.md, deprecations: a
 * legacy trigger reads as engine v1, its causes as events, for_each as once_per, its action as one
 * invoke_action target), derived from the legacy fields.
 */
function withModelView(record: Record<string, any>): Record<string, unknown> {
  return {
    ...record,
    engine: "v1",
    managed_by: null,
    fires_on: { type: "events", events: record.causes.map((cause: string) => CAUSE_EVENTS[cause]), once_per: record.for_each === "dataset_file" ? "file" : "dataset" },
    targets: [
      {
        type: "invoke_action",
        target_id: "action",
        action: record.action,
        required_inputs: record.required_inputs,
        additional_inputs: record.additional_inputs,
        parameter_values: record.parameter_values,
        compute_requirement_overrides: record.compute_requirement_overrides,
        container_parameter_overrides: record.container_parameter_overrides,
        timeout: record.timeout,
      },
    ],
  };
}

const FULL_CONDITION = { operator: "AND", conditions: [{ field: "metadata.vehicle", comparator: "EQUALS", value: "v1" }, { field: "tags", comparator: "CONTAINS", value: "field" }] };

/** A create request that sets every field, with the client SDK's names for the overrides. */
function full(name: string): Record<string, unknown> {
  return {
    name,
    action_name: tunable.name,
    action_digest: tunable.digest,
    action_owner_id: alice.orgId,
    for_each: "dataset_file",
    required_inputs: ["*.bag", "logs/"],
    additional_inputs: ["calibration.yaml"],
    causes: ["file_upload", "file_ingest"],
    condition: FULL_CONDITION,
    compute_requirement_overrides: { vCPU: 1024, memory: 4096 },
    container_parameter_overrides: { command: ["python", "run.py"], env_vars: { MODE: "fast" } },
    enabled: false,
    parameter_values: { mode: "strict" },
    service_user_id: ROBOT,
    timeout: 600,
  };
}

function fullRecord(name: string): Record<string, unknown> {
  return withModelView({
    ...minimalRecord(name),
    action: { name: tunable.name, digest: tunable.digest, owner: alice.orgId },
    required_inputs: ["*.bag", "logs/"],
    service_user_id: ROBOT,
    for_each: "dataset_file",
    enabled: false,
    parameter_values: { mode: "strict" },
    additional_inputs: ["calibration.yaml"],
    causes: ["file_upload", "file_ingest"],
    compute_requirement_overrides: { vCPU: 1024, memory: 4096, gpu: false, storage: 21 },
    container_parameter_overrides: { command: ["python", "run.py"], entry_point: [], env_vars: { MODE: "fast" }, workdir: null },
    condition: FULL_CONDITION,
    timeout: 600,
  });
}

describe("create_trigger and get_trigger", () => {
  test("creates a trigger from the required fields with every default, and reads it back", async () => {
    const name = unique("minimal");
    const created = await createTrigger(alice.client, minimal(name));
    expect(created).toEqual(minimalRecord(name));
    expect(created.modified).toBe(created.created);
    expect(await alice.client.get(`/v1/triggers/${name}`)).toMatchObject({ status: 200, body: { data: created } });
  });

  test("every field is stored and returned: pinned digest, overrides completed with the defaults, condition", async () => {
    const name = unique("full");
    const created = await createTrigger(alice.client, full(name));
    expect(created).toEqual(fullRecord(name));
    expect((await alice.client.get(`/v1/triggers/${name}`)).body).toEqual({ data: created });
  });

  test("the spec's names for the overrides (compute_requirements with memory_MiB, container_parameters) are accepted", async () => {
    const created = await createTrigger(
      alice.client,
      minimal(unique("spec-names"), { compute_requirements: { vCPU: 2048, memory_MiB: 8192, storage_GiB: 40 }, container_parameters: { workdir: "/app" } }),
    );
    expect(created.compute_requirement_overrides).toEqual({ vCPU: 2048, memory: 8192, gpu: false, storage: 40 });
    expect(created.container_parameter_overrides).toEqual({ command: [], entry_point: [], env_vars: {}, workdir: "/app" });
  });

  test("null for every optional field means its default (clients send full models)", async () => {
    const name = unique("nulls");
    const nulls = {
      action_digest: null, action_owner_id: null, additional_inputs: null, causes: null, condition: null, compute_requirement_overrides: null,
      container_parameter_overrides: null, enabled: null, parameter_values: null, service_user_id: null, timeout: null,
    };
    expect(await createTrigger(alice.client, minimal(name, nulls))).toEqual(minimalRecord(name));
  });

  test("a name of 256 characters of letters, digits, '_' and '-' is accepted", async () => {
    const name = `${"a".repeat(250)}_b-c-9`;
    expect(name).toHaveLength(256);
    expect((await createTrigger(alice.client, minimal(name))).name).toBe(name);
  });

  test.each([
    ["a name with a space", { name: "has space" }, "name"],
    ["a name of 257 characters", { name: "n".repeat(257) }, "name"],
    ["an empty name", { name: "" }, "name"],
    ["no name", { name: undefined }, "name"],
    ["no action_name", { action_name: undefined }, "action_name"],
    ["an unknown for_each", { for_each: "topic" }, "for_each"],
    ["no for_each", { for_each: undefined }, "for_each"],
    ["empty required_inputs", { required_inputs: [] }, "required_inputs"],
    ["no required_inputs", { required_inputs: undefined }, "required_inputs"],
    ["a blank required pattern", { required_inputs: ["*.bag", "  "] }, "required_inputs[1]"],
    ["a negated required pattern", { required_inputs: ["!*.tmp"] }, "required_inputs[0]"],
    ["a blank additional pattern", { additional_inputs: [""] }, "additional_inputs[0]"],
    ["a condition that is not an object", { condition: "name = 'x'" }, "condition"],
    ["a condition with an unknown comparator", { condition: { field: "name", comparator: "EQ", value: "x" } }, "condition.comparator"],
    ["an unknown cause", { causes: ["file_upload", "dataset_deleted"] }, "causes[1]"],
    ["the scheduled triggers' cause", { causes: ["recurring_schedule"] }, "causes[0]"],
    ["a timeout of 0", { timeout: 0 }, "timeout"],
    ["an unsupported vCPU", { compute_requirement_overrides: { vCPU: 3 } }, "compute_requirement_overrides.vCPU"],
    ["both names of the compute overrides", { compute_requirements: { vCPU: 512 }, compute_requirement_overrides: { vCPU: 512 } }, "compute_requirements"],
    ["an unknown parameter", { parameter_values: { bogus: 1 } }, "parameter_values.bogus"],
  ])("%s is a 400 naming the field, and nothing is written", async (_label, change, field) => {
    const before = await triggerCount(alice.client);
    const body = { ...minimal(unique("bad")), ...change };
    expectBadRequest(await alice.client.post("/v1/triggers", body, LEGACY_TRIGGERS), field);
    expect(await triggerCount(alice.client)).toBe(before);
  });

  test("parameter values are checked against the action's parameters: a required one must be given", async () => {
    const base = { ...full(unique("params")), parameter_values: {} };
    expectBadRequest(await alice.client.post("/v1/triggers", base, LEGACY_TRIGGERS), "parameter_values.mode");
    expectBadRequest(await alice.client.post("/v1/triggers", { ...base, parameter_values: { mode: "x", bogus: "y" } }, LEGACY_TRIGGERS), "parameter_values.bogus");
  });

  test("a name already used in the org is a 409; another org may use it", async () => {
    const name = unique("taken");
    await createTrigger(alice.client, minimal(name));
    expectError(await alice.client.post("/v1/triggers", minimal(name), LEGACY_TRIGGERS), 409, new RegExp(`^name: a trigger named '${name}' already exists`));
    const bobs = await createAction(bob.client, { name: plain.name });
    expect((await createTrigger(bob.client, minimal(name, { action_name: bobs.name }))).org_id).toBe(bob.orgId);
  });

  test("an unknown action, an unknown digest of it, or another org's private action is a 404, and nothing is written", async () => {
    const before = await triggerCount(alice.client);
    expectError(await alice.client.post("/v1/triggers", minimal(unique("x"), { action_name: "no-such-action" }), LEGACY_TRIGGERS), 404, "action 'no-such-action' not found");
    expect((await alice.client.post("/v1/triggers", minimal(unique("x"), { action_digest: "0".repeat(32) }), LEGACY_TRIGGERS)).status).toBe(404);
    const bobsPrivate = await createAction(bob.client, { name: unique("private") });
    expect((await alice.client.post("/v1/triggers", minimal(unique("x"), { action_name: bobsPrivate.name, action_owner_id: bob.orgId }), LEGACY_TRIGGERS)).status).toBe(404);
    expect(await triggerCount(alice.client)).toBe(before);
  });

  test("an Action Hub action of another org may be triggered; the record names its owner", async () => {
    const hub = await createAction(bob.client, { name: unique("hub") });
    expect((await bob.client.put(`/v1/actions/${hub.name}/accessibility`, { accessibility: "action_hub" })).status).toBe(200);
    const created = await createTrigger(alice.client, minimal(unique("hub-trigger"), { action_name: hub.name, action_owner_id: bob.orgId }));
    expect(created.action).toEqual({ name: hub.name, digest: null, owner: bob.orgId });
  });

  test("another org's trigger is a 404 on get, update and delete, and stays unchanged", async () => {
    const name = unique("alices");
    const created = await createTrigger(alice.client, minimal(name));
    expectError(await bob.client.get(`/v1/triggers/${name}`), 404, `trigger '${name}' not found`);
    expect((await bob.client.put(`/v1/triggers/${name}`, { enabled: false })).status).toBe(404);
    expect((await bob.client.delete(`/v1/triggers/${name}`)).status).toBe(404);
    expect((await bob.client.get(`/v1/triggers/${name}`, { "X-Service-Resource-Owner-Id": alice.orgId })).status).toBe(404);
    expect((await alice.client.get(`/v1/triggers/${name}`)).body.data).toEqual(created);
  });
});

describe("update_trigger", () => {
  test("omitted fields stay as they are; the modifier and time are recorded", async () => {
    const name = unique("upd");
    const created = await createTrigger(alice.client, full(name));
    const res = await alice.client.put(`/v1/triggers/${name}`, { enabled: true, required_inputs: ["*.mcap"] });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(withModelView({ ...created, enabled: true, required_inputs: ["*.mcap"], modified: ISO }));
    expect(Date.parse(res.body.data.modified)).toBeGreaterThanOrEqual(Date.parse(created.modified));
    expect((await alice.client.get(`/v1/triggers/${name}`)).body.data).toEqual(res.body.data);
  });

  test("null clears each clearable field to its default; null on a required one leaves it unchanged", async () => {
    const name = unique("clear");
    await createTrigger(alice.client, { ...full(name), action_name: plain.name, action_digest: plain.digest, parameter_values: {} });
    const res = await alice.client.put(`/v1/triggers/${name}`, {
      action_digest: null, action_owner_id: null, additional_inputs: null, causes: null, condition: null, compute_requirement_overrides: null,
      container_parameter_overrides: null, parameter_values: null, service_user_id: null, timeout: null,
      action_name: null, for_each: null, required_inputs: null, enabled: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(withModelView({ ...minimalRecord(name), required_inputs: ["*.bag", "logs/"], for_each: "dataset_file", enabled: false }));
  });

  test("the overrides, condition, action and parameters can be replaced, with the same checks as create", async () => {
    const name = unique("replace");
    await createTrigger(alice.client, minimal(name));
    const res = await alice.client.put(`/v1/triggers/${name}`, {
      action_name: tunable.name,
      parameter_values: { mode: "loose" },
      compute_requirement_overrides: { vCPU: 4096, memory_MiB: 16384 },
      container_parameter_overrides: { entry_point: ["/bin/sh"] },
      condition: { field: "name", comparator: "BEGINS_WITH", value: "run" },
      causes: ["dataset_metadata_update"],
      timeout: 120,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      action: { name: tunable.name, digest: null, owner: alice.orgId },
      parameter_values: { mode: "loose" },
      compute_requirement_overrides: { vCPU: 4096, memory: 16384, gpu: false, storage: 21 },
      container_parameter_overrides: { command: [], entry_point: ["/bin/sh"], env_vars: {}, workdir: null },
      condition: { field: "name", comparator: "BEGINS_WITH", value: "run" },
      causes: ["dataset_metadata_update"],
      timeout: 120,
    });
  });

  test.each([
    [{ required_inputs: [] }, "required_inputs"],
    [{ required_inputs: "*.bag" }, "required_inputs"],
    [{ for_each: "device" }, "for_each"],
    [{ enabled: "yes" }, "enabled"],
    [{ condition: { operator: "XOR", conditions: [] } }, "condition.operator"],
    [{ parameter_values: { bogus: 1 } }, "parameter_values.bogus"],
    [{ compute_requirement_overrides: { vCPU: 1 } }, "compute_requirement_overrides.vCPU"],
    [{ compute_requirement_overrides: "big" }, "compute_requirement_overrides"],
    [{ timeout: 1.5 }, "timeout"],
    [{ causes: ["recurring_schedule"] }, "causes[0]"],
  ])("%j is a 400 naming %s, and the trigger is unchanged", async (body, field) => {
    const name = unique("bad-upd");
    const created = await createTrigger(alice.client, minimal(name));
    expectBadRequest(await alice.client.put(`/v1/triggers/${name}`, body), field);
    expect((await alice.client.get(`/v1/triggers/${name}`)).body.data).toEqual(created);
  });

  test("switching to an unknown action is a 404; an unknown trigger is a 404", async () => {
    const name = unique("upd-404");
    await createTrigger(alice.client, minimal(name));
    expect((await alice.client.put(`/v1/triggers/${name}`, { action_name: "no-such-action" })).status).toBe(404);
    expectError(await alice.client.put("/v1/triggers/no-such-trigger", { enabled: false }), 404, "trigger 'no-such-trigger' not found");
  });
});

describe("runs-as: who a trigger's service_user_id may name (issue 9, finding 1)", () => {
  let member: { userId: string; client: ApiClient };

  beforeAll(async () => {
    member = await newMember(alice.orgId, "plain-member");
  });

  const deniedService = (res: ApiResponse) => {
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/^service_user_id: /);
  };

  test("a plain member naming the org's admin is a 403 naming service_user_id, and no trigger is written", async () => {
    const name = unique("escalate");
    const before = await triggerCount(alice.client);
    const res = await member.client.post("/v1/triggers", minimal(name, { service_user_id: alice.userId }), LEGACY_TRIGGERS);
    expectError(res, 403, `service_user_id: only an owner or admin of org '${alice.orgId}' may name a user other than themselves`);
    expect((await alice.client.get(`/v1/triggers/${name}`)).status).toBe(404);
    expect(await triggerCount(alice.client)).toBe(before);
  });

  test("a plain member may name itself", async () => {
    const created = await createTrigger(member.client, minimal(unique("self"), { service_user_id: member.userId }));
    expect(created.service_user_id).toBe(member.userId);
  });

  test("an admin may name another member of the org", async () => {
    const created = await createTrigger(alice.client, minimal(unique("delegated"), { service_user_id: member.userId }));
    expect(created.service_user_id).toBe(member.userId);
  });

  test("a user of another org, or no user at all, is a 403 even for an admin, and nothing is written", async () => {
    for (const [label, userId] of [["foreign", bob.userId], ["ghost", "nobody@example.com"]] as const) {
      const name = unique(label);
      const res = await alice.client.post("/v1/triggers", minimal(name, { service_user_id: userId }), LEGACY_TRIGGERS);
      expectError(res, 403, `service_user_id: the user named is not a member of org '${alice.orgId}'`);
      expect((await alice.client.get(`/v1/triggers/${name}`)).status).toBe(404);
    }
  });

  test("update: the same rule for service_user_id, and nothing changes on refusal", async () => {
    const name = unique("upd-runs-as");
    const created = await createTrigger(member.client, minimal(name));
    deniedService(await member.client.put(`/v1/triggers/${name}`, { service_user_id: alice.userId }));
    deniedService(await alice.client.put(`/v1/triggers/${name}`, { service_user_id: bob.userId }));
    expect((await alice.client.get(`/v1/triggers/${name}`)).body.data).toEqual(created);
    const delegated = await alice.client.put(`/v1/triggers/${name}`, { service_user_id: ROBOT });
    expect([delegated.status, delegated.body.data?.service_user_id]).toEqual([200, ROBOT]);
  });

  test("update: a member may not change what an admin's trigger runs as the admin, but may switch it off", async () => {
    const name = unique("swap");
    await createTrigger(alice.client, minimal(name));
    deniedService(await member.client.put(`/v1/triggers/${name}`, { action_name: tunable.name, parameter_values: { mode: "x" } }));
    deniedService(await member.client.put(`/v1/triggers/${name}`, { service_user_id: null }));
    expect((await alice.client.get(`/v1/triggers/${name}`)).body.data).toMatchObject({ action: { name: plain.name }, service_user_id: alice.userId });
    const off = await member.client.put(`/v1/triggers/${name}`, { enabled: false });
    expect([off.status, off.body.data?.enabled]).toEqual([200, false]);
  });
});

describe("runs-as re-checked at evaluation (issue 9, finding 1)", () => {
  /** Waits for the trigger's one finished evaluation of the dataset. */
  async function evaluated(client: ApiClient, name: string): Promise<any> {
    return waitFor(`the evaluation of ${name}`, async () => {
      const items = (await client.get(`/v1/triggers/${name}/evaluations`)).body.data.items as { status: string }[];
      return items.length === 1 && items[0]!.status !== "pending" ? items[0] : undefined;
    });
  }

  async function invocationsOf(client: ApiClient, triggerId: string): Promise<unknown[]> {
    const res = await client.post("/v1/actions/invocations/query", { condition: { field: "provenance.source.source_id", comparator: "EQUALS", value: triggerId } });
    expect(res.status).toBe(200);
    return res.body.data.items;
  }

  test("a trigger whose service user has left the org fires nothing, and its evaluation says why", async () => {
    const org = await createTenant(t, "leaving");
    const owner = await newMember(org.orgId, "first-owner", ["owner"]);
    const remaining = await newMember(org.orgId, "second-owner", ["owner"]);
    await createAction(owner.client, { name: "plain" });
    const name = unique("orphaned");
    const trigger = await createTrigger(owner.client, { name, action_name: "plain", for_each: "dataset", required_inputs: ["*.bag"] });
    const removed = await remaining.client.delete(`/v1/orgs/id/${org.orgId}/users/id/${encodeURIComponent(owner.userId)}`);
    expect(removed.status).toBe(200);
    const datasetId = await createDataset(remaining.client, "after-leaving");
    await uploadFiles(remaining.client, datasetId, { "run.bag": "bag" });
    const evaluation = await evaluated(remaining.client, name);
    expect(evaluation).toMatchObject({ status: "failed", outcome: null, outcome_reason: null });
    expect(evaluation.status_detail).toBe(
      `service_user_id: the trigger may no longer run as '${owner.userId}': the user named is not a member of org '${org.orgId}'`,
    );
    expect(await invocationsOf(remaining.client, trigger.trigger_id)).toEqual([]);
  });

  test("a trigger named to run as a member by an admin who has since lost the role fires nothing", async () => {
    const org = await createTenant(t, "demoted");
    const owner = await newMember(org.orgId, "the-owner", ["owner"]);
    const admin = await newMember(org.orgId, "former-admin", ["admin"]);
    await createAction(admin.client, { name: "plain" });
    const name = unique("granted");
    const trigger = await createTrigger(admin.client, { name, action_name: "plain", for_each: "dataset", required_inputs: ["*.bag"], service_user_id: org.userId });
    const demoted = await owner.client.put(`/v1/orgs/id/${org.orgId}/users/id/${encodeURIComponent(admin.userId)}`, { remove_roles: ["admin"] });
    expect(demoted.status).toBe(200);
    const datasetId = await createDataset(owner.client, "after-demotion");
    await uploadFiles(owner.client, datasetId, { "run.bag": "bag" });
    const evaluation = await evaluated(owner.client, name);
    expect(evaluation).toMatchObject({ status: "failed", outcome: null });
    expect(evaluation.status_detail).toMatch(/may name a user other than themselves$/);
    expect(await invocationsOf(owner.client, trigger.trigger_id)).toEqual([]);
  });
});

describe("delete_trigger", () => {
  test("answers data null; the trigger is gone and its name free again", async () => {
    const name = unique("del");
    await createTrigger(alice.client, minimal(name));
    expect(await alice.client.delete(`/v1/triggers/${name}`)).toMatchObject({ status: 200, body: { data: null } });
    expect((await alice.client.get(`/v1/triggers/${name}`)).status).toBe(404);
    expect((await alice.client.delete(`/v1/triggers/${name}`)).status).toBe(404);
    await createTrigger(alice.client, minimal(name));
  });
});

describe("query_triggers", () => {
  let carol: TestTenant;
  let action: { name: string };
  beforeAll(async () => {
    carol = await createTenant(t, "carol");
    action = await createAction(carol.client, { name: "carols-action" });
    for (const [name, forEach, enabled] of [["q-a", "dataset", true], ["q-b", "dataset_file", true], ["q-c", "dataset_file", false]] as const) {
      await createTrigger(carol.client, { name, action_name: action.name, for_each: forEach, required_inputs: ["*"], enabled });
    }
  });

  async function names(spec: unknown): Promise<{ names: string[]; total: number; next: string | null }> {
    const res = await carol.client.post("/v1/triggers/query", spec);
    expect(res.status).toBe(200);
    return { names: res.body.data.items.map((i: { name: string }) => i.name), total: res.body.data.total_count, next: res.body.data.next_token };
  }

  test("an empty specification lists the org's triggers newest first, as full records", async () => {
    const res = await carol.client.post("/v1/triggers/query", {});
    expect(res.body.data).toEqual({ items: [expect.objectContaining({ name: "q-c", enabled: false }), expect.anything(), expect.anything()], next_token: null, total_count: 3 });
    expect(res.body.data.items.map((i: { name: string }) => i.name)).toEqual(["q-c", "q-b", "q-a"]);
    expect(res.body.data.items[0]).toEqual((await carol.client.get("/v1/triggers/q-c")).body.data);
  });

  test.each([
    [{ field: "for_each", comparator: "EQUALS", value: "dataset_file" }, ["q-b", "q-c"]],
    [{ field: "enabled", comparator: "EQUALS", value: false }, ["q-c"]],
    [{ field: "name", comparator: "BEGINS_WITH", value: "q-a" }, ["q-a"]],
    [{ field: "action_name", comparator: "EQUALS", value: "carols-action" }, ["q-a", "q-b", "q-c"]],
    [{ field: "action.name", comparator: "EQUALS", value: "other" }, []],
    [{ operator: "AND", conditions: [{ field: "for_each", comparator: "EQUALS", value: "dataset_file" }, { field: "enabled", comparator: "EQUALS", value: true }] }, ["q-b"]],
  ])("condition %j selects %j", async (condition, expected) => {
    const result = await names({ condition, sort_by: "name", sort_direction: "ASC" });
    expect({ names: result.names, total: result.total }).toEqual({ names: expected, total: expected.length });
  });

  test("created_by selects the creator's triggers", async () => {
    expect((await names({ condition: { field: "created_by", comparator: "EQUALS", value: carol.userId } })).total).toBe(3);
  });

  test("pages with limit and after until next_token is null", async () => {
    const first = await names({ limit: 2, sort_by: "name", sort_direction: "ASC" });
    expect(first).toEqual({ names: ["q-a", "q-b"], total: 3, next: expect.any(String) });
    const second = await names({ limit: 2, sort_by: "name", sort_direction: "ASC", after: first.next });
    expect(second).toEqual({ names: ["q-c"], total: 3, next: null });
  });

  test("bad specifications are 400s naming the field", async () => {
    expectBadRequest(await carol.client.post("/v1/triggers/query", { condition: { field: "colour", comparator: "EQUALS", value: "x" } }), "condition.field");
    expectBadRequest(await carol.client.post("/v1/triggers/query", { sort_by: "colour" }), "sort_by");
    expectBadRequest(await carol.client.post("/v1/triggers/query", { limit: 0 }), "limit");
    expectBadRequest(await carol.client.post("/v1/triggers/query", { after: "not-a-token" }), "after");
  });

  test("another org sees none of them, also when naming the org as resource owner", async () => {
    expect((await bob.client.post("/v1/triggers/query", { condition: { field: "action_name", comparator: "EQUALS", value: "carols-action" } })).body.data).toEqual({
      items: [],
      next_token: null,
      total_count: 0,
    });
    expect((await bob.client.post("/v1/triggers/query", {}, { "X-Service-Resource-Owner-Id": carol.orgId })).body.data.items).toEqual([]);
  });
});

describe("trigger evaluations", () => {
  let name: string;
  let trigger: { trigger_id: string };
  let datasetId: string;
  const transactions: string[] = [];

  beforeAll(async () => {
    name = unique("evals");
    trigger = await createTrigger(alice.client, minimal(name, { required_inputs: ["*.csv"] }));
    datasetId = await createDataset(alice.client, "evaluated");
    // One upload at a time, each evaluated before the next, so each sees the files before it.
    for (const file of ["a.txt", "b.csv", "c.csv"]) {
      transactions.push((await uploadFiles(alice.client, datasetId, { [file]: file })).transactionId);
      await waitFor(`evaluation ${transactions.length}`, async () => {
        const items = (await alice.client.get(`/v1/triggers/${name}/evaluations`)).body.data.items as { status: string }[];
        return items.length === transactions.length && items.every((e) => e.status !== "pending") ? true : undefined;
      });
    }
  });

  function evaluation(transactionId: string, outcome: string, reason: string | null): Record<string, unknown> {
    return {
      trigger_evaluation_id: expect.any(Number),
      trigger_id: trigger.trigger_id,
      data_source: { data_source_type: "Dataset", data_source_id: datasetId },
      data_constraint: { transaction_id: transactionId, file_id: null },
      evaluation_start: ISO,
      evaluation_end: ISO,
      status: "evaluated",
      status_detail: null,
      outcome,
      outcome_reason: reason,
      cause: "file_upload",
    };
  }

  test("a trigger's evaluations are listed newest first, one per upload, with their outcomes", async () => {
    const res = await alice.client.get(`/v1/triggers/${name}/evaluations`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      items: [
        evaluation(transactions[2]!, "skipped", "already_run"),
        evaluation(transactions[1]!, "invoked_action", null),
        evaluation(transactions[0]!, "skipped", "no_matching_files"),
      ],
      next_token: null,
      total_count: 3,
    });
    const ids = res.body.data.items.map((e: { trigger_evaluation_id: number }) => e.trigger_evaluation_id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
  });

  test("pages with limit and page_token until next_token is null", async () => {
    const all = (await alice.client.get(`/v1/triggers/${name}/evaluations`)).body.data.items;
    const first = (await alice.client.get(`/v1/triggers/${name}/evaluations?limit=2`)).body.data;
    expect(first).toEqual({ items: all.slice(0, 2), next_token: expect.any(String), total_count: 3 });
    const second = (await alice.client.get(`/v1/triggers/${name}/evaluations?limit=2&page_token=${first.next_token}`)).body.data;
    expect(second).toEqual({ items: all.slice(2), next_token: null, total_count: 3 });
    expect((await alice.client.get(`/v1/triggers/${name}/evaluations?page_token=None`)).body.data.items).toEqual(all);
  });

  test("a dataset's evaluations list every trigger's evaluations made for it, newest first", async () => {
    const res = await alice.client.get(`/v1/triggers/dataset/id/${datasetId}/evaluations`);
    expect(res.status).toBe(200);
    const mine = res.body.data.items.filter((e: { trigger_id: string }) => e.trigger_id === trigger.trigger_id);
    expect(mine).toEqual((await alice.client.get(`/v1/triggers/${name}/evaluations`)).body.data.items);
    const page = (await alice.client.get(`/v1/triggers/dataset/id/${datasetId}/evaluations?limit=1`)).body.data;
    expect(page).toEqual({ items: [res.body.data.items[0]], next_token: expect.any(String), total_count: res.body.data.total_count });
  });

  test("bad listing parameters are 400s naming them", async () => {
    expectBadRequest(await alice.client.get(`/v1/triggers/${name}/evaluations?limit=0`), "limit");
    expectBadRequest(await alice.client.get(`/v1/triggers/${name}/evaluations?limit=many`), "limit");
    expectBadRequest(await alice.client.get(`/v1/triggers/${name}/evaluations?page_token=garbage!`), "page_token");
    expectBadRequest(await alice.client.get(`/v1/triggers/dataset/id/${datasetId}/evaluations?limit=-1`), "limit");
    expectBadRequest(await alice.client.get(`/v1/triggers/${name}/evaluations?trigger_type=cron`), "trigger_type");
    const datasetToken = (await alice.client.get(`/v1/triggers/dataset/id/${datasetId}/evaluations?limit=1`)).body.data.next_token;
    expectBadRequest(await alice.client.get(`/v1/triggers/${name}/evaluations?page_token=${datasetToken}`), "page_token");
  });

  test("trigger_type event_driven lists the same; scheduled names no trigger here (404)", async () => {
    const all = (await alice.client.get(`/v1/triggers/${name}/evaluations`)).body.data;
    expect((await alice.client.get(`/v1/triggers/${name}/evaluations?trigger_type=event_driven`)).body.data).toEqual(all);
    expect((await alice.client.get(`/v1/triggers/${name}/evaluations?trigger_type=scheduled`)).status).toBe(404);
  });

  test("another org: the trigger's listing and the dataset's are 404s, as every dataset route is", async () => {
    expect((await bob.client.get(`/v1/triggers/${name}/evaluations`)).status).toBe(404);
    expectError(await bob.client.get(`/v1/triggers/dataset/id/${datasetId}/evaluations`), 404, `dataset '${datasetId}' not found`);
    expect((await bob.client.get(`/v1/triggers/dataset/id/${datasetId}/evaluations`, { "X-Service-Resource-Owner-Id": alice.orgId })).status).toBe(404);
    expectError(await alice.client.get("/v1/triggers/dataset/id/ds_doesnotexist/evaluations"), 404, "dataset 'ds_doesnotexist' not found");
  });

  test("deleting a trigger deletes its evaluations", async () => {
    expect((await alice.client.delete(`/v1/triggers/${name}`)).status).toBe(200);
    const left = (await alice.client.get(`/v1/triggers/dataset/id/${datasetId}/evaluations`)).body.data.items;
    expect(left.filter((e: { trigger_id: string }) => e.trigger_id === trigger.trigger_id)).toEqual([]);
  });
});
