import { expectBadRequest, startWithTenants, uploadFiles, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// The tag listings of SDK 0.62 (sdk-0.62-routes.md row 44: GET /v1/datasets/tags, /v1/events/tags,
// /v1/files/tags): the distinct tags of the org's records, by tag, with `search`, `limit` and
// `page_token`; from API 2026-08-10 a page `{items, next_token}`, before it the bare list. Another
// org's tags never show.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["tags-alice", "tags-bob"]);
  const one = (await alice.client.post("/v1/datasets", { name: "one", tags: ["Highway", "night", "rain"] })).body.data.dataset_id;
  await alice.client.post("/v1/datasets", { name: "two", tags: ["night", "city"] });
  await bob.client.post("/v1/datasets", { name: "bob's", tags: ["secret"] });
  await uploadFiles(alice.client, one, { "a.txt": "a", "b.txt": "b" });
  for (const [path, tags] of [["a.txt", ["imu", "raw"]], ["b.txt", ["raw"]]] as const) {
    const file = (await alice.client.get(`/v1/files/record/path/${path}/association/${one}`)).body.data;
    expect((await alice.client.put(`/v1/files/record/${file.file_id}`, { metadata_changeset: { put_tags: tags } })).status).toBe(200);
  }
  const event = { start_time: 1, end_time: 2, associations: [{ association_id: one, association_type: "dataset" }] };
  await alice.client.post("/v1/events/create", { ...event, name: "stop", tags: ["brake", "stop"] });
  await alice.client.post("/v1/events/create", { ...event, name: "go", tags: ["go"] });
});
afterAll(() => t?.close());

const latest = { "X-Roboto-Api-Version": "2026-10-06" };

describe("tag listings", () => {
  test.each([
    ["datasets", ["city", "Highway", "night", "rain"]],
    ["events", ["brake", "go", "stop"]],
    ["files", ["imu", "raw"]],
  ])("/v1/%s/tags lists the org's distinct tags once each, by tag", async (kind, tags) => {
    const res = await alice.client.get(`/v1/${kind}/tags`, latest);
    expect(res.status).toBe(200);
    expect(res.body.data.items.slice().sort()).toEqual([...tags].sort());
    expect(res.body.data.next_token ?? null).toBeNull();
  });

  test("search keeps the tags containing it, case-insensitively", async () => {
    expect((await alice.client.get("/v1/datasets/tags?search=IGH", latest)).body.data.items).toEqual(["Highway", "night"]);
  });

  test("limit pages the listing and page_token follows it", async () => {
    const first = (await alice.client.get("/v1/datasets/tags?limit=3", latest)).body.data;
    expect(first.items).toHaveLength(3);
    const second = (await alice.client.get(`/v1/datasets/tags?limit=3&page_token=${encodeURIComponent(first.next_token)}`, latest)).body.data;
    expect([...first.items, ...second.items].sort()).toEqual(["city", "Highway", "night", "rain"].sort());
    expect(second.next_token ?? null).toBeNull();
  });

  test("callers of versions before 2026-08-10 get the bare list", async () => {
    const res = await alice.client.get("/v1/events/tags", { "X-Roboto-Api-Version": "2026-05-20" });
    expect(res.status).toBe(200);
    expect(res.body.data.slice().sort()).toEqual(["brake", "go", "stop"]);
  });

  test("bad input is a 400 naming the field", async () => {
    expectBadRequest(await alice.client.get("/v1/files/tags?limit=0", latest), "limit");
    expectBadRequest(await alice.client.get("/v1/files/tags?limit=x", latest), "limit");
    expectBadRequest(await alice.client.get("/v1/files/tags?search=", latest), "search");
    expectBadRequest(await alice.client.get("/v1/files/tags?page_token=bogus", latest), "page_token");
  });

  test("another org sees only its own tags", async () => {
    expect((await bob.client.get("/v1/datasets/tags", latest)).body.data.items).toEqual(["secret"]);
    expect((await bob.client.get("/v1/files/tags", latest)).body.data.items).toEqual([]);
    expect((await bob.client.get("/v1/events/tags", latest)).body.data.items).toEqual([]);
  });
});
