import {
  apiClient,
  createTenant,
  expectBadRequest,
  expectError,
  startWithTenants,
  type ApiClient,
  type ApiResponse,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// Actions through the gateway: create_action (POST /v1/actions), get_action (GET /v1/actions/{name},
// optional ?digest=), update_action (PUT), delete_action (DELETE), set_action_accessibility
// (PUT /v1/actions/{name}/accessibility), query_actions (POST /v1/actions/query and
// /v1/actions/query/actionhub, next page via body `after`) and list_action_metadata_keys
// (GET /v1/actions/metadata/keys).

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
});
afterAll(() => t?.close());

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const DIGEST = expect.stringMatching(/^[0-9a-f]{32}$/);

let counter = 0;
/** A name no other test uses. */
function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function createAction(client: ApiClient, body: Record<string, unknown>, headers?: Record<string, string>): Promise<any> {
  const res = await client.post("/v1/actions", body, headers);
  // The body is part of the assertion so that a failure shows the error.
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

async function getAction(client: ApiClient, name: string, headers?: Record<string, string>): Promise<ApiResponse> {
  return client.get(`/v1/actions/${name}`, headers);
}

async function update(client: ApiClient, name: string, body: unknown): Promise<any> {
  const res = await client.put(`/v1/actions/${name}`, body);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function queryNames(client: ApiClient, path: string, spec: unknown, headers?: Record<string, string>): Promise<string[]> {
  const res = await client.post(path, spec, headers);
  expect(res.status).toBe(200);
  return res.body.data.items.map((a: { name: string }) => a.name);
}

/** A user in `orgId` besides its first one, with a token. */
async function addMember(orgId: string, label: string): Promise<{ userId: string; client: ApiClient }> {
  const userId = `${unique(label)}@example.com`;
  expect((await t.admin.post("/v1/users", { user_id: userId, org_id: orgId })).status).toBe(200);
  const token = await t.admin.post("/v1/tokens", { name: "test", expiry_days: 1 }, { "X-Service-User-Id": userId });
  expect(token.status).toBe(200);
  return { userId, client: apiClient(t.url, token.body.data.secret) };
}

/** The wire record of an action created with nothing but a name. */
function bareRecord(name: string, tenant: TestTenant): Record<string, unknown> {
  return {
    created: ISO,
    created_by: tenant.userId,
    modified: ISO,
    modified_by: tenant.userId,
    name,
    org_id: tenant.orgId,
    accessibility: "organization",
    compute_requirements: null,
    container_parameters: null,
    description: null,
    digest: DIGEST,
    inherits: null,
    metadata: {},
    parameters: [],
    published: null,
    requires_downloaded_inputs: null,
    tags: [],
    timeout: null,
    uri: null,
    short_description: null,
  };
}

const FULL_BODY = {
  compute_requirements: { vCPU: 1024, memory_MiB: 4096, gpu: false, storage_GiB: 40 },
  container_parameters: { command: ["python", "main.py"], entry_point: ["/bin/sh", "-c"], env_vars: { MODE: "fast" }, workdir: "/app" },
  description: "Counts lines",
  short_description: "Line counter",
  metadata: { team: { name: "perception" }, version: 2 },
  parameters: [
    { name: "threshold", required: true, description: "cut-off", default: 0.5 },
    { name: "verbose", default: true },
    { name: "label", default: "x" },
    { name: "plain" },
  ],
  requires_downloaded_inputs: false,
  tags: ["lines", "text", "lines"],
  timeout: 600,
  uri: "registry.example.com/count-lines:1.0",
};

describe("create_action and get_action", () => {
  test("creates an action with every documented field and reads it back", async () => {
    const name = unique("full");
    const action = await createAction(alice.client, { name, ...FULL_BODY });
    expect(action).toEqual({
      ...bareRecord(name, alice),
      compute_requirements: { vCPU: 1024, memory: 4096, gpu: false, storage: 40 },
      container_parameters: { command: ["python", "main.py"], entry_point: ["/bin/sh", "-c"], env_vars: { MODE: "fast" }, workdir: "/app" },
      description: "Counts lines",
      short_description: "Line counter",
      metadata: { team: { name: "perception" }, version: 2 },
      parameters: [
        { name: "threshold", required: true, description: "cut-off", default: "0.5" },
        { name: "verbose", required: false, description: null, default: "true" },
        { name: "label", required: false, description: null, default: "x" },
        { name: "plain", required: false, description: null, default: null },
      ],
      requires_downloaded_inputs: false,
      tags: ["lines", "text"],
      timeout: 600,
      uri: "registry.example.com/count-lines:1.0",
    });
    expect(action.modified).toBe(action.created);
    const got = await getAction(alice.client, name);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ data: action });
  });

  test("a name alone gives the defaults: nulls, no parameters, metadata {} and tags [], organization accessibility", async () => {
    const name = unique("bare");
    expect(await createAction(alice.client, { name })).toEqual(bareRecord(name, alice));
  });

  test("null for every optional field means the defaults (clients send full models)", async () => {
    const name = unique("nulls");
    const body = {
      name,
      compute_requirements: null,
      container_parameters: null,
      description: null,
      inherits: null,
      metadata: null,
      parameters: null,
      requires_downloaded_inputs: null,
      short_description: null,
      tags: null,
      timeout: null,
      uri: null,
    };
    expect(await createAction(alice.client, body)).toEqual(bareRecord(name, alice));
  });

  test("compute requirements take the SDK's keys too, and unset ones get the defaults", async () => {
    const sdkKeys = await createAction(alice.client, { name: unique("sdk-keys"), compute_requirements: { vCPU: 2048, memory: 8192, gpu: false, storage: 25 } });
    expect(sdkKeys.compute_requirements).toEqual({ vCPU: 2048, memory: 8192, gpu: false, storage: 25 });
    const partial = await createAction(alice.client, { name: unique("partial"), compute_requirements: { vCPU: 256 } });
    expect(partial.compute_requirements).toEqual({ vCPU: 256, memory: 1024, gpu: false, storage: 21 });
  });

  test("container parameters left out are empty lists and maps, and a null workdir", async () => {
    const action = await createAction(alice.client, { name: unique("workdir"), container_parameters: { workdir: "/w" } });
    expect(action.container_parameters).toEqual({ command: [], entry_point: [], env_vars: {}, workdir: "/w" });
  });

  test("a second action of the same name in the org is a 409, and the first is unchanged", async () => {
    const name = unique("dup");
    const first = await createAction(alice.client, { name, description: "first" });
    expectError(await alice.client.post("/v1/actions", { name, description: "second" }), 409, /already exists/);
    expect((await getAction(alice.client, name)).body.data).toEqual(first);
  });

  test("the same name in another org is a different action", async () => {
    const name = unique("shared-name");
    const a = await createAction(alice.client, { name, description: "same" });
    const b = await createAction(bob.client, { name, description: "same" });
    expect(b.org_id).toBe(bob.orgId);
    expect(b.digest).not.toBe(a.digest);
  });

  test("a name of 256 characters from the allowed set is accepted", async () => {
    const name = `A9_.-${"n".repeat(251)}`;
    expect((await createAction(alice.client, { name })).name).toBe(name);
  });

  describe("bad input is a 400 naming the field, and nothing is written", () => {
    async function total(): Promise<number> {
      return (await alice.client.post("/v1/actions/query", {})).body.data.total_count;
    }

    test.each<[string, Record<string, unknown>, string]>([
      ["a missing name", {}, "name"],
      ["an empty name", { name: "" }, "name"],
      ["a name with a space", { name: "has space" }, "name"],
      ["a name with a slash", { name: "a/b" }, "name"],
      ["a name starting with a dot", { name: ".hidden" }, "name"],
      ["a name starting with a dash", { name: "-x" }, "name"],
      ["a name with non-ASCII letters", { name: "ação" }, "name"],
      ["a name of 257 characters", { name: "n".repeat(257) }, "name"],
      ["an unsupported vCPU", { name: "bad-vcpu", compute_requirements: { vCPU: 3 } }, "compute_requirements.vCPU"],
      ["a GPU", { name: "bad-gpu", compute_requirements: { gpu: true } }, "compute_requirements.gpu"],
      ["too little storage", { name: "bad-storage", compute_requirements: { storage_GiB: 20 } }, "compute_requirements.storage"],
      ["no memory", { name: "bad-memory", compute_requirements: { memory_MiB: 0 } }, "compute_requirements.memory"],
      ["a vCPU that is not a number", { name: "bad-vcpu-type", compute_requirements: { vCPU: "many" } }, "compute_requirements.vCPU"],
      ["duplicate parameter names", { name: "dup-params", parameters: [{ name: "p" }, { name: "q" }, { name: "p" }] }, "parameters[2].name"],
      ["an empty parameter name", { name: "empty-param", parameters: [{ name: "" }] }, "parameters[0].name"],
      ["a zero timeout", { name: "zero-timeout", timeout: 0 }, "timeout"],
      ["a timeout over 12 hours", { name: "long-timeout", timeout: 12 * 3600 + 1 }, "timeout"],
      ["a timeout that is not a number", { name: "text-timeout", timeout: "soon" }, "timeout"],
      ["a blank uri", { name: "blank-uri", uri: "  " }, "uri"],
      ["a short description over 140 characters", { name: "long-short", short_description: "s".repeat(141) }, "short_description"],
      ["an empty tag", { name: "empty-tag", tags: ["ok", ""] }, "tags[1]"],
    ])("%s", async (_, body, field) => {
      const before = await total();
      expectBadRequest(await alice.client.post("/v1/actions", body), field);
      expect(await total()).toBe(before);
    });
  });

  test("an unknown action is a 404", async () => {
    expectError(await getAction(alice.client, "no-such-action"), 404, "action 'no-such-action' not found");
  });
});

describe("digest", () => {
  test("is 32 hex digits and the same for the same definition, e.g. when an action is recreated", async () => {
    const name = unique("recreate");
    const first = await createAction(alice.client, { name, ...FULL_BODY });
    expect(first.digest).toEqual(DIGEST);
    expect((await alice.client.delete(`/v1/actions/${name}`)).status).toBe(200);
    // Metadata and tags are not part of the definition.
    const again = await createAction(alice.client, { name, ...FULL_BODY, metadata: { other: true }, tags: ["different"] });
    expect(again.digest).toBe(first.digest);
  });

  test("an update that sets what is already there keeps the digest", async () => {
    const name = unique("same");
    const action = await createAction(alice.client, { name, description: "d", timeout: 60 });
    const updated = await update(alice.client, name, { description: "d", timeout: 60 });
    expect(updated.digest).toBe(action.digest);
  });

  test("a changed definition gets a new digest; the earlier one stays readable with ?digest=", async () => {
    const name = unique("versions");
    const v1 = await createAction(alice.client, { name, description: "one", timeout: 60, parameters: [{ name: "p", default: 1 }] });
    const v2 = await update(alice.client, name, { description: "two", parameter_changeset: { put_parameters: [{ name: "q" }] } });
    expect(v2.digest).toEqual(DIGEST);
    expect(v2.digest).not.toBe(v1.digest);

    const old = await alice.client.get(`/v1/actions/${name}?digest=${v1.digest}`);
    expect(old.status).toBe(200);
    // The definition as it was, with the action's current bookkeeping (a digest does not cover it).
    expect(old.body.data).toEqual({ ...v1, modified: v2.modified });
    expect((await alice.client.get(`/v1/actions/${name}?digest=${v2.digest}`)).body.data).toEqual(v2);
    expect((await getAction(alice.client, name)).body.data).toEqual(v2);
  });

  test("reverting a definition returns to its earlier digest", async () => {
    const name = unique("revert");
    const v1 = await createAction(alice.client, { name, uri: "img:1" });
    const v2 = await update(alice.client, name, { uri: "img:2" });
    const v3 = await update(alice.client, name, { uri: "img:1" });
    expect(v2.digest).not.toBe(v1.digest);
    expect(v3.digest).toBe(v1.digest);
    expect((await alice.client.get(`/v1/actions/${name}?digest=${v2.digest}`)).body.data.uri).toBe("img:2");
  });

  test("a metadata-only update keeps the digest", async () => {
    const name = unique("meta-only");
    const action = await createAction(alice.client, { name, description: "d" });
    const updated = await update(alice.client, name, { metadata_changeset: { put_fields: { a: 1 }, put_tags: ["t"] } });
    expect(updated.digest).toBe(action.digest);
    expect(updated.metadata).toEqual({ a: 1 });
    expect(updated.tags).toEqual(["t"]);
  });

  test("an unknown digest is a 404", async () => {
    const name = unique("unknown-digest");
    await createAction(alice.client, { name });
    expectError(await alice.client.get(`/v1/actions/${name}?digest=0123456789abcdef0123456789abcdef`), 404, /not found/);
  });
});

describe("update_action", () => {
  test("omitted fields stay; explicit nulls clear; modified and modified_by move", async () => {
    const name = unique("clear");
    const action = await createAction(alice.client, { name, ...FULL_BODY });
    const member = await addMember(alice.orgId, "editor");
    await sleep(3);
    const clearing = {
      compute_requirements: null,
      container_parameters: null,
      description: null,
      short_description: null,
      requires_downloaded_inputs: null,
      timeout: null,
      uri: null,
    };
    const cleared = await member.client.put(`/v1/actions/${name}`, clearing);
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toEqual({ ...action, ...clearing, digest: DIGEST, modified: ISO, modified_by: member.userId });
    expect(cleared.body.data.digest).not.toBe(action.digest);
    expect(cleared.body.data.modified > action.modified).toBe(true);
    expect((await getAction(alice.client, name)).body.data).toEqual(cleared.body.data);
  });

  test("an empty body changes no field of the definition", async () => {
    const name = unique("empty-update");
    const action = await createAction(alice.client, { name, ...FULL_BODY });
    const updated = await update(alice.client, name, {});
    expect(updated).toEqual({ ...action, modified: ISO });
  });

  test("sets each field, compute requirements with either key spelling", async () => {
    const name = unique("set");
    await createAction(alice.client, { name });
    const updated = await update(alice.client, name, {
      compute_requirements: { vCPU: 4096, memory_MiB: 8192, storage: 50 },
      container_parameters: { command: ["run"], env_vars: { A: "1" } },
      description: "desc",
      short_description: "short",
      requires_downloaded_inputs: true,
      timeout: 120,
      uri: "img:2",
    });
    expect(updated).toEqual(
      expect.objectContaining({
        compute_requirements: { vCPU: 4096, memory: 8192, gpu: false, storage: 50 },
        container_parameters: { command: ["run"], entry_point: [], env_vars: { A: "1" }, workdir: null },
        description: "desc",
        short_description: "short",
        requires_downloaded_inputs: true,
        timeout: 120,
        uri: "img:2",
      }),
    );
  });

  test("parameter_changeset puts (replacing by name, appending new ones) and removes", async () => {
    const name = unique("params");
    await createAction(alice.client, { name, parameters: [{ name: "a" }, { name: "b", default: 1 }, { name: "c" }] });
    const updated = await update(alice.client, name, {
      parameter_changeset: { put_parameters: [{ name: "b", required: true, description: "now required" }, { name: "d", default: false }], remove_parameters: ["a"] },
    });
    expect(updated.parameters).toEqual([
      { name: "b", required: true, description: "now required", default: null },
      { name: "c", required: false, description: null, default: null },
      { name: "d", required: false, description: null, default: "false" },
    ]);
  });

  test("metadata_changeset puts and removes fields and tags", async () => {
    const name = unique("metadata");
    await createAction(alice.client, { name, metadata: { keep: 1, drop: 2 }, tags: ["a", "b"] });
    const updated = await update(alice.client, name, {
      metadata_changeset: { put_fields: { "nested.key": "v" }, remove_fields: ["drop"], put_tags: ["c", "a"], remove_tags: ["b"] },
    });
    expect(updated.metadata).toEqual({ keep: 1, nested: { key: "v" } });
    expect(updated.tags).toEqual(["a", "c"]);
  });

  describe("bad input is a 400 naming the field, and nothing changes", () => {
    test.each<[string, Record<string, unknown>, string]>([
      ["an unsupported vCPU", { compute_requirements: { vCPU: 3 } }, "compute_requirements.vCPU"],
      ["compute requirements that are not an object", { compute_requirements: "big" }, "compute_requirements"],
      ["a vCPU that is not a number", { compute_requirements: { vCPU: "many" } }, "compute_requirements.vCPU"],
      ["a command that is not a list", { container_parameters: { command: "run" } }, "container_parameters.command"],
      ["container parameters that are not an object", { container_parameters: [1] }, "container_parameters"],
      ["a description that is not a string", { description: 5 }, "description"],
      ["a timeout that is not an integer", { timeout: 1.5 }, "timeout"],
      ["a timeout out of range", { timeout: -1 }, "timeout"],
      ["requires_downloaded_inputs that is not a boolean", { requires_downloaded_inputs: "yes" }, "requires_downloaded_inputs"],
      ["an empty uri", { uri: "" }, "uri"],
      ["inherits without a name", { inherits: { digest: "x" } }, "inherits.name"],
      ["a parameter to remove that does not exist", { parameter_changeset: { remove_parameters: ["missing"] } }, "parameter_changeset.remove_parameters[0]"],
      ["duplicate parameter names to put", { parameter_changeset: { put_parameters: [{ name: "x" }, { name: "x" }] } }, "parameter_changeset.put_parameters[1].name"],
      ["an empty tag to put", { metadata_changeset: { put_tags: [""] } }, "metadata_changeset.put_tags[0]"],
    ])("%s", async (_, body, field) => {
      const name = unique("bad-update");
      const action = await createAction(alice.client, { name, description: "d", parameters: [{ name: "p" }] });
      expectBadRequest(await alice.client.put(`/v1/actions/${name}`, { ...body, metadata_changeset: { put_fields: { touched: true }, ...(body.metadata_changeset as object) } }), field);
      expect((await getAction(alice.client, name)).body.data).toEqual(action);
    });
  });

  test("an unknown action is a 404", async () => {
    expectError(await alice.client.put("/v1/actions/no-such-action", { description: "x" }), 404, "action 'no-such-action' not found");
  });
});

describe("inherits", () => {
  test("fields the create leaves unset come from the referenced action; the record keeps the resolved reference", async () => {
    const parentName = unique("parent");
    const parent = await createAction(alice.client, { name: parentName, ...FULL_BODY });
    const name = unique("child");
    const child = await createAction(alice.client, { name, inherits: { name: parentName }, description: "my own", metadata: { own: true } });
    expect(child).toEqual({
      ...parent,
      ...bareRecord(name, alice),
      compute_requirements: parent.compute_requirements,
      container_parameters: parent.container_parameters,
      short_description: parent.short_description,
      parameters: parent.parameters,
      requires_downloaded_inputs: parent.requires_downloaded_inputs,
      timeout: parent.timeout,
      uri: parent.uri,
      description: "my own",
      metadata: { own: true },
      inherits: { name: parentName, digest: parent.digest, owner: alice.orgId },
    });
    expect(child.digest).not.toBe(parent.digest);
  });

  test("a digest in the reference inherits the definition as it was at that digest", async () => {
    const parentName = unique("parent-v");
    const v1 = await createAction(alice.client, { name: parentName, uri: "img:1", timeout: 60 });
    await update(alice.client, parentName, { uri: "img:2" });
    const child = await createAction(alice.client, { name: unique("child-v"), inherits: { name: parentName, digest: v1.digest, owner: alice.orgId } });
    expect(child).toEqual(expect.objectContaining({ uri: "img:1", timeout: 60, inherits: { name: parentName, digest: v1.digest, owner: alice.orgId } }));
  });

  test("an unknown action, an unknown digest or another org's private action is a 404", async () => {
    const privateName = unique("bob-private");
    await createAction(bob.client, { name: privateName });
    const parentName = unique("parent-404");
    await createAction(alice.client, { name: parentName });
    for (const inherits of [{ name: "no-such-action" }, { name: parentName, digest: "0".repeat(32) }, { name: privateName, owner: bob.orgId }]) {
      expect((await alice.client.post("/v1/actions", { name: unique("orphan"), inherits })).status).toBe(404);
    }
  });

  test("another org's Action Hub action may be inherited", async () => {
    const hubName = unique("bob-hub");
    await createAction(bob.client, { name: hubName, uri: "bob/img:1" });
    const published = await bob.client.put(`/v1/actions/${hubName}/accessibility`, { accessibility: "action_hub" });
    const child = await createAction(alice.client, { name: unique("from-hub"), inherits: { name: hubName, owner: bob.orgId } });
    expect(child.uri).toBe("bob/img:1");
    expect(child.inherits).toEqual({ name: hubName, digest: published.body.data.digest, owner: bob.orgId });
  });

  test("update sets the reference (unset fields inherited) or clears it with null", async () => {
    const parentName = unique("parent-u");
    const parent = await createAction(alice.client, { name: parentName, uri: "img:p", timeout: 90 });
    const name = unique("child-u");
    await createAction(alice.client, { name, timeout: 30 });
    const linked = await update(alice.client, name, { inherits: { name: parentName } });
    expect(linked).toEqual(expect.objectContaining({ uri: "img:p", timeout: 30, inherits: { name: parentName, digest: parent.digest, owner: alice.orgId } }));
    const unlinked = await update(alice.client, name, { inherits: null });
    expect(unlinked).toEqual(expect.objectContaining({ uri: "img:p", timeout: 30, inherits: null }));
    expect(unlinked.digest).not.toBe(linked.digest);
  });
});

describe("delete_action", () => {
  test("answers data: null; the action and its earlier digests are gone and the name is free again", async () => {
    const name = unique("doomed");
    const v1 = await createAction(alice.client, { name, uri: "img:1" });
    await update(alice.client, name, { uri: "img:2" });
    const res = await alice.client.delete(`/v1/actions/${name}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: null });
    expect((await getAction(alice.client, name)).status).toBe(404);
    expect((await alice.client.get(`/v1/actions/${name}?digest=${v1.digest}`)).status).toBe(404);
    expect((await alice.client.delete(`/v1/actions/${name}`)).status).toBe(404);
    expect((await createAction(alice.client, { name, uri: "img:1" })).digest).toBe(v1.digest);
  });
});

describe("set_action_accessibility", () => {
  test("action_hub sets published; organization clears it; the digest stays", async () => {
    const name = unique("publish");
    const action = await createAction(alice.client, { name });
    const hub = await alice.client.put(`/v1/actions/${name}/accessibility`, { accessibility: "action_hub" });
    expect(hub.status).toBe(200);
    expect(hub.body.data).toEqual({ ...action, accessibility: "action_hub", published: ISO, modified: ISO });
    const again = await alice.client.put(`/v1/actions/${name}/accessibility`, { accessibility: "action_hub", digest: action.digest });
    expect(again.body.data.published).toBe(hub.body.data.published);
    const back = await alice.client.put(`/v1/actions/${name}/accessibility`, { accessibility: "organization" });
    expect(back.body.data).toEqual({ ...action, modified: ISO });
    expect((await getAction(alice.client, name)).body.data).toEqual(back.body.data);
  });

  test("an earlier digest of the action is accepted; an unknown one is a 404 and changes nothing", async () => {
    const name = unique("publish-digest");
    const v1 = await createAction(alice.client, { name, uri: "img:1" });
    await update(alice.client, name, { uri: "img:2" });
    expect((await alice.client.put(`/v1/actions/${name}/accessibility`, { accessibility: "action_hub", digest: v1.digest })).status).toBe(200);
    expect((await alice.client.put(`/v1/actions/${name}/accessibility`, { accessibility: "organization", digest: "f".repeat(32) })).status).toBe(404);
    expect((await getAction(alice.client, name)).body.data.accessibility).toBe("action_hub");
  });

  test("an unknown accessibility is a 400 naming the field", async () => {
    const name = unique("bad-accessibility");
    await createAction(alice.client, { name });
    expectBadRequest(await alice.client.put(`/v1/actions/${name}/accessibility`, { accessibility: "public" }), "accessibility");
    expectBadRequest(await alice.client.put(`/v1/actions/${name}/accessibility`, {}), "accessibility");
    expect((await getAction(alice.client, name)).body.data.accessibility).toBe("organization");
  });

  test("an unknown action is a 404", async () => {
    expect((await alice.client.put("/v1/actions/no-such-action/accessibility", { accessibility: "action_hub" })).status).toBe(404);
  });
});

describe("another org", () => {
  test("a private action is 404 on get, update, delete and set_accessibility, with or without naming the owner", async () => {
    const name = unique("private");
    const action = await createAction(alice.client, { name, description: "mine" });
    const headerSets: Record<string, string>[] = [{}, { "X-Service-Resource-Owner-Id": alice.orgId }];
    for (const headers of headerSets) {
      expect((await getAction(bob.client, name, headers)).status).toBe(404);
      expect((await bob.client.put(`/v1/actions/${name}`, { description: "theirs" }, headers)).status).toBe(404);
      expect((await bob.client.put(`/v1/actions/${name}/accessibility`, { accessibility: "action_hub" }, headers)).status).toBe(404);
      expect((await bob.client.delete(`/v1/actions/${name}`, undefined, headers)).status).toBe(404);
    }
    expect((await getAction(alice.client, name)).body.data).toEqual(action);
  });

  test("queries and metadata keys find nothing of another org, even when naming it", async () => {
    await createAction(alice.client, { name: unique("hidden"), metadata: { alice_only: 1 } });
    const own = await queryNames(bob.client, "/v1/actions/query", {});
    expect(own.every((n) => !n.startsWith("hidden"))).toBe(true);
    const named = await bob.client.post("/v1/actions/query", {}, { "X-Service-Resource-Owner-Id": alice.orgId });
    expect(named.body).toEqual({ data: { items: [], next_token: null, total_count: 0 } });
    const keys = await bob.client.get("/v1/actions/metadata/keys", { "X-Service-Resource-Owner-Id": alice.orgId });
    expect(keys.body).toEqual({ data: [] });
  });

  test("an Action Hub action is readable with the owner header, listed on the hub, and still not editable", async () => {
    const hubName = unique("hubbed");
    const privateName = unique("kept");
    await createAction(alice.client, { name: hubName, description: "shared" });
    await createAction(alice.client, { name: privateName });
    const hub = (await alice.client.put(`/v1/actions/${hubName}/accessibility`, { accessibility: "action_hub" })).body.data;
    const owner = { "X-Service-Resource-Owner-Id": alice.orgId };

    const got = await getAction(bob.client, hubName, owner);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(hub);
    expect((await bob.client.get(`/v1/actions/${hubName}?digest=${hub.digest}`, owner)).body.data).toEqual(hub);
    expect((await getAction(bob.client, hubName, { "X-Roboto-Resource-Owner-Id": alice.orgId })).status).toBe(200);
    // Without the owner header the name is looked up in bob's own org.
    expect((await getAction(bob.client, hubName)).status).toBe(404);

    const listed = await queryNames(bob.client, "/v1/actions/query/actionhub", { condition: { field: "org_id", comparator: "EQUALS", value: alice.orgId } });
    expect(listed).toContain(hubName);
    expect(listed).not.toContain(privateName);
    expect(await queryNames(bob.client, "/v1/actions/query", {})).not.toContain(hubName);

    expect((await bob.client.put(`/v1/actions/${hubName}`, { description: "theirs" }, owner)).status).toBe(404);
    expect((await bob.client.put(`/v1/actions/${hubName}/accessibility`, { accessibility: "organization" }, owner)).status).toBe(404);
    expect((await bob.client.delete(`/v1/actions/${hubName}`, undefined, owner)).status).toBe(404);
    expect((await getAction(alice.client, hubName)).body.data).toEqual(hub);
  });

  test("an action taken off the hub is private again", async () => {
    const name = unique("unpublished");
    await createAction(alice.client, { name });
    await alice.client.put(`/v1/actions/${name}/accessibility`, { accessibility: "action_hub" });
    await alice.client.put(`/v1/actions/${name}/accessibility`, { accessibility: "organization" });
    expect((await getAction(bob.client, name, { "X-Service-Resource-Owner-Id": alice.orgId })).status).toBe(404);
    expect(await queryNames(bob.client, "/v1/actions/query/actionhub", { condition: { field: "name", comparator: "EQUALS", value: name } })).toEqual([]);
  });
});

describe("a member of several orgs", () => {
  let multi: TestTenant;
  let secondOrg: string;

  beforeAll(async () => {
    multi = await createTenant(t, "multi");
    const org = await multi.client.post("/v1/orgs", { name: "multi-second" });
    expect(org.status).toBe(200);
    secondOrg = org.body.data.org_id;
  });

  test("creates in the org it names and reads, edits and lists that org's actions with the owner header", async () => {
    const inFirst = { "X-Service-Org-Id": multi.orgId };
    const owner = { ...inFirst, "X-Service-Resource-Owner-Id": secondOrg };
    const name = unique("second-org");
    const action = await createAction(multi.client, { name, metadata: { site: "b" } }, { "X-Service-Org-Id": secondOrg });
    expect(action.org_id).toBe(secondOrg);
    expect((await getAction(multi.client, name, inFirst)).status).toBe(404);
    expect((await getAction(multi.client, name, owner)).body.data).toEqual(action);
    expect((await multi.client.put(`/v1/actions/${name}`, { description: "edited" }, owner)).body.data.description).toBe("edited");
    expect(await queryNames(multi.client, "/v1/actions/query", {}, owner)).toEqual([name]);
    expect((await multi.client.get("/v1/actions/metadata/keys", owner)).body).toEqual({ data: ["site"] });
    expect((await multi.client.delete(`/v1/actions/${name}`, undefined, owner)).body).toEqual({ data: null });
  });

  test("a create without an org header is a 400 asking for one", async () => {
    expectError(await multi.client.post("/v1/actions", { name: unique("which-org") }), 400, /X-Service-Org-Id/);
  });
});

describe("query_actions", () => {
  let finder: TestTenant;
  let fixtures: any[];

  beforeAll(async () => {
    finder = await createTenant(t, "finder");
    fixtures = [];
    const bodies = [
      { name: "alpha", description: "first one", uri: "reg/alpha:1", timeout: 60, metadata: { stage: "dev", rank: 3 }, tags: ["vision", "fast"] },
      { name: "beta", short_description: "second", uri: "reg/beta:1", timeout: 600, metadata: { stage: "prod", rank: 1 }, tags: ["vision"] },
      { name: "gamma", uri: "other/gamma:1", metadata: { stage: "prod" }, tags: ["lidar"] },
    ];
    for (const body of bodies) {
      fixtures.push(await createAction(finder.client, body));
      await sleep(3);
    }
    fixtures[1] = (await finder.client.put("/v1/actions/beta/accessibility", { accessibility: "action_hub" })).body.data;
  });

  async function matching(condition: unknown): Promise<string[]> {
    const res = await finder.client.post("/v1/actions/query", { condition, sort_by: "created", sort_direction: "ASC" });
    expect(res.status).toBe(200);
    expect(res.body.data.next_token).toBeNull();
    expect(res.body.data.total_count).toBe(res.body.data.items.length);
    return res.body.data.items.map((a: { name: string }) => a.name);
  }

  const cond = (field: string, comparator: string, value?: unknown) => (value === undefined ? { field, comparator } : { field, comparator, value });

  test("items are whole Action records, newest first by default", async () => {
    const res = await finder.client.post("/v1/actions/query", {});
    expect(res.body).toEqual({ data: { items: [...fixtures].reverse(), next_token: null, total_count: 3 } });
  });

  test.each<[string, unknown, string[]]>([
    ["name EQUALS", cond("name", "EQUALS", "beta"), ["beta"]],
    ["tags CONTAINS (membership)", cond("tags", "CONTAINS", "vision"), ["alpha", "beta"]],
    ["metadata.<path> EQUALS", cond("metadata.stage", "EQUALS", "prod"), ["beta", "gamma"]],
    ["metadata number GREATER_THAN", cond("metadata.rank", "GREATER_THAN", 2), ["alpha"]],
    ["description LIKE", cond("description", "LIKE", "first%"), ["alpha"]],
    ["short_description IS_NOT_NULL", cond("short_description", "IS_NOT_NULL"), ["beta"]],
    ["uri BEGINS_WITH", cond("uri", "BEGINS_WITH", "reg/"), ["alpha", "beta"]],
    ["timeout GREATER_THAN", cond("timeout", "GREATER_THAN", 100), ["beta"]],
    ["timeout IS_NULL", cond("timeout", "IS_NULL"), ["gamma"]],
    ["accessibility EQUALS", cond("accessibility", "EQUALS", "action_hub"), ["beta"]],
    ["an `action.` qualified field", cond("action.name", "EQUALS", "gamma"), ["gamma"]],
    ["OR group", { operator: "OR", conditions: [cond("name", "EQUALS", "alpha"), cond("name", "EQUALS", "gamma")] }, ["alpha", "gamma"]],
    ["NOT group", { operator: "NOT", conditions: [cond("tags", "CONTAINS", "vision")] }, ["gamma"]],
  ])("%s", async (_, condition, expected) => {
    expect(await matching(condition)).toEqual(expected);
  });

  test("digest, created_by, modified_by and created conditions", async () => {
    expect(await matching(cond("digest", "EQUALS", fixtures[2].digest))).toEqual(["gamma"]);
    expect(await matching(cond("created_by", "EQUALS", finder.userId))).toEqual(["alpha", "beta", "gamma"]);
    expect(await matching(cond("modified_by", "NOT_EQUALS", finder.userId))).toEqual([]);
    expect(await matching(cond("created", "GREATER_THAN", fixtures[0].created))).toEqual(["beta", "gamma"]);
  });

  test("pages with limit and `after`, sorted by name", async () => {
    const first = await finder.client.post("/v1/actions/query", { limit: 2, sort_by: "name", sort_direction: "ASC" });
    expect(first.body.data).toEqual({ items: [fixtures[0], fixtures[1]], next_token: expect.any(String), total_count: 3 });
    const second = await finder.client.post("/v1/actions/query", { limit: 2, sort_by: "name", sort_direction: "ASC", after: first.body.data.next_token });
    expect(second.body.data).toEqual({ items: [fixtures[2]], next_token: null, total_count: 3 });
  });

  test("the Action Hub query takes the same conditions over every org's hub actions", async () => {
    expect(await queryNames(bob.client, "/v1/actions/query/actionhub", { condition: cond("metadata.stage", "EQUALS", "prod") })).toEqual(["beta"]);
    const res = await bob.client.post("/v1/actions/query/actionhub", { condition: cond("org_id", "EQUALS", finder.orgId) });
    expect(res.body).toEqual({ data: { items: [fixtures[1]], next_token: null, total_count: 1 } });
  });

  test.each<[string, unknown, string]>([
    ["an unknown field", { condition: cond("colour", "EQUALS", "red") }, "condition.field"],
    ["an unknown comparator", { condition: cond("name", "RESEMBLES", "a") }, "condition.comparator"],
    ["a comparator the field does not support", { condition: cond("tags", "GREATER_THAN", "a") }, "condition.comparator"],
    ["a value of the wrong type", { condition: cond("timeout", "GREATER_THAN", "long") }, "condition.value"],
    ["an empty group", { condition: { operator: "AND", conditions: [] } }, "condition.conditions"],
    ["an unknown sort field", { sort_by: "colour" }, "sort_by"],
    ["an unknown sort direction", { sort_direction: "SIDEWAYS" }, "sort_direction"],
    ["a zero limit", { limit: 0 }, "limit"],
    ["a malformed page token", { after: "not a token" }, "after"],
  ])("%s is a 400 naming the field, on both query routes", async (_, spec, field) => {
    expectBadRequest(await finder.client.post("/v1/actions/query", spec), field);
    expectBadRequest(await finder.client.post("/v1/actions/query/actionhub", spec), field);
  });
});

describe("list_action_metadata_keys", () => {
  test("lists the distinct top-level metadata keys of the org's actions, sorted", async () => {
    const keeper = await createTenant(t, "keeper");
    expect((await keeper.client.get("/v1/actions/metadata/keys")).body).toEqual({ data: [] });
    await createAction(keeper.client, { name: "k1", metadata: { zeta: 1, alpha: { nested: true } } });
    await createAction(keeper.client, { name: "k2", metadata: { alpha: 2, mid: "x" } });
    await createAction(keeper.client, { name: "k3" });
    const res = await keeper.client.get("/v1/actions/metadata/keys");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: ["alpha", "mid", "zeta"] });
  });
});
