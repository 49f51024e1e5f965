import {
  expectBadRequest,
  startWithTenants,
  type ApiClient,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// get_dataset_permissions and update_dataset_permissions (GET|PUT /v1/datasets/{dataset_id}/access).

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
});
afterAll(() => t?.close());

interface Tuple {
  user: string;
  relation: string;
  obj: string;
}

async function createDataset(client: ApiClient): Promise<string> {
  const res = await client.post("/v1/datasets", { name: "shared" });
  expect(res.status).toBe(200);
  return res.body.data.dataset_id;
}

function accessPath(datasetId: string): string {
  return `/v1/datasets/${datasetId}/access`;
}

async function permissions(client: ApiClient, datasetId: string): Promise<{ relations: Tuple[]; group_permissions: Record<string, string[]> }> {
  const res = await client.get(accessPath(datasetId));
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Edits the permissions; the answer must equal what a read returns afterwards. */
async function edit(client: ApiClient, datasetId: string, body: unknown): Promise<{ relations: Tuple[] }> {
  const res = await client.put(accessPath(datasetId), body);
  expect(res.status).toBe(200);
  expect(await permissions(client, datasetId)).toEqual(res.body.data);
  return res.body.data;
}

/** The tuples naming `user`, as `relation` strings. */
function relationsOf(listing: { relations: Tuple[] }, user: string): string[] {
  return listing.relations.filter((r) => r.user === user).map((r) => r.relation);
}



describe("get_dataset_permissions", () => {
  test("returns {relations, group_permissions}: tuples of strings and a map of relation to a list of strings", async () => {
    const datasetId = await createDataset(alice.client);
    const res = await alice.client.get(accessPath(datasetId));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(["group_permissions", "relations"]);
    for (const tuple of res.body.data.relations) {
      expect(tuple).toEqual({ user: expect.any(String), relation: expect.any(String), obj: `dataset:${datasetId}` });
    }
    for (const grants of Object.values(res.body.data.group_permissions)) {
      expect(grants).toEqual(expect.arrayContaining([expect.any(String)]));
    }
  });

  test("the creator holds the owner relation", async () => {
    const datasetId = await createDataset(alice.client);
    expect(relationsOf(await permissions(alice.client, datasetId), alice.userId)).toEqual(["owner"]);
  });

  test("group_permissions has an entry for every relation in use", async () => {
    const datasetId = await createDataset(alice.client);
    await edit(alice.client, datasetId, { add: [{ user: "v@example.com", relation: "viewer", obj: "" }] });
    const { relations, group_permissions: groups } = await permissions(alice.client, datasetId);
    for (const tuple of relations) expect(groups[tuple.relation]).toEqual(expect.arrayContaining([expect.any(String)]));
  });

  test("an unknown dataset is a 404", async () => {
    const res = await alice.client.get(accessPath("ds_doesnotexist000000"));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { error_code: 404, message: expect.any(String), stack_trace: "" } });
  });

  test("another org's caller gets a 404", async () => {
    const datasetId = await createDataset(alice.client);
    expect((await bob.client.get(accessPath(datasetId))).status).toBe(404);
  });

  test("naming the owner org in X-Service-Resource-Owner-Id does not help a non-member", async () => {
    const datasetId = await createDataset(alice.client);
    expect((await bob.client.get(accessPath(datasetId), { "X-Service-Resource-Owner-Id": alice.orgId })).status).toBe(404);
  });
});

describe("update_dataset_permissions", () => {
  test("add puts tuples on the dataset; obj may be empty or name the dataset", async () => {
    const datasetId = await createDataset(alice.client);
    const listing = await edit(alice.client, datasetId, {
      add: [
        { user: "v@example.com", relation: "viewer", obj: "" },
        { user: "e@example.com", relation: "editor", obj: `dataset:${datasetId}` },
      ],
    });
    expect(listing.relations).toEqual(
      expect.arrayContaining([
        { user: "v@example.com", relation: "viewer", obj: `dataset:${datasetId}` },
        { user: "e@example.com", relation: "editor", obj: `dataset:${datasetId}` },
      ]),
    );
  });

  test("adding a tuple that is already there, or twice in one request, keeps one copy", async () => {
    const datasetId = await createDataset(alice.client);
    const tuple = { user: "v@example.com", relation: "viewer", obj: "" };
    await edit(alice.client, datasetId, { add: [tuple, tuple] });
    const listing = await edit(alice.client, datasetId, { add: [tuple] });
    expect(relationsOf(listing, "v@example.com")).toEqual(["viewer"]);
  });

  test("one user may hold several relations", async () => {
    const datasetId = await createDataset(alice.client);
    const listing = await edit(alice.client, datasetId, {
      add: [
        { user: "u@example.com", relation: "viewer", obj: "" },
        { user: "u@example.com", relation: "editor", obj: "" },
      ],
    });
    expect(relationsOf(listing, "u@example.com").sort()).toEqual(["editor", "viewer"]);
  });

  test("remove takes tuples away; removing an absent tuple is a no-op", async () => {
    const datasetId = await createDataset(alice.client);
    await edit(alice.client, datasetId, {
      add: [
        { user: "a@example.com", relation: "viewer", obj: "" },
        { user: "b@example.com", relation: "viewer", obj: "" },
      ],
    });
    const listing = await edit(alice.client, datasetId, {
      remove: [
        { user: "a@example.com", relation: "viewer", obj: "" },
        { user: "nobody@example.com", relation: "editor", obj: "" },
      ],
    });
    expect(relationsOf(listing, "a@example.com")).toEqual([]);
    expect(relationsOf(listing, "b@example.com")).toEqual(["viewer"]);
  });

  test("add and remove apply together in one request", async () => {
    const datasetId = await createDataset(alice.client);
    await edit(alice.client, datasetId, { add: [{ user: "u@example.com", relation: "viewer", obj: "" }] });
    const listing = await edit(alice.client, datasetId, {
      add: [{ user: "u@example.com", relation: "editor", obj: "" }],
      remove: [{ user: "u@example.com", relation: "viewer", obj: "" }],
    });
    expect(relationsOf(listing, "u@example.com")).toEqual(["editor"]);
  });

  test("an empty edit changes nothing", async () => {
    const datasetId = await createDataset(alice.client);
    const before = await permissions(alice.client, datasetId);
    expect(await edit(alice.client, datasetId, {})).toEqual(before);
    expect(await edit(alice.client, datasetId, { add: [], remove: null })).toEqual(before);
  });

  test("unknown body fields are ignored", async () => {
    const datasetId = await createDataset(alice.client);
    const listing = await edit(alice.client, datasetId, {
      add: [{ user: "u@example.com", relation: "viewer", obj: "", note: "x" }],
      reason: "audit",
    });
    expect(relationsOf(listing, "u@example.com")).toEqual(["viewer"]);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["an unknown relation", { add: [{ user: "u@example.com", relation: "superuser", obj: "" }] }, "add[0].relation"],
    ["an unknown relation in remove", { remove: [{ user: "u@example.com", relation: "root", obj: "" }] }, "remove[0].relation"],
    ["an empty user", { add: [{ user: "", relation: "viewer", obj: "" }] }, "add[0].user"],
    ["another dataset as obj", { add: [{ user: "u@example.com", relation: "viewer", obj: "dataset:ds_other" }] }, "add[0].obj"],
    ["a string as add", { add: "viewer" }, "add"],
    ["a number as user", { add: [{ user: 5, relation: "viewer", obj: "" }] }, "add[0].user"],
    ["a tuple that is not an object", { add: ["u@example.com"] }, "add[0]"],
  ])("%s is a 400 naming the field", async (_, body, field) => {
    const datasetId = await createDataset(alice.client);
    const before = await permissions(alice.client, datasetId);
    expectBadRequest(await alice.client.put(accessPath(datasetId), body), field);
    expect(await permissions(alice.client, datasetId)).toEqual(before);
  });

  test("a bad tuple after a good one is a 400 and neither is written", async () => {
    const datasetId = await createDataset(alice.client);
    const before = await permissions(alice.client, datasetId);
    const res = await alice.client.put(accessPath(datasetId), {
      add: [
        { user: "good@example.com", relation: "viewer", obj: "" },
        { user: "bad@example.com", relation: "nope", obj: "" },
      ],
    });
    expectBadRequest(res, "add[1].relation");
    expect(await permissions(alice.client, datasetId)).toEqual(before);
  });

  test("an unknown dataset is a 404", async () => {
    expect((await alice.client.put(accessPath("ds_doesnotexist000000"), { add: [] })).status).toBe(404);
  });

  test("another org's caller gets a 404 and the permissions are unchanged", async () => {
    const datasetId = await createDataset(alice.client);
    const before = await permissions(alice.client, datasetId);
    const res = await bob.client.put(accessPath(datasetId), { add: [{ user: bob.userId, relation: "owner", obj: "" }] });
    expect(res.status).toBe(404);
    expect(await permissions(alice.client, datasetId)).toEqual(before);
  });
});
