import { startWithTenants, type ApiClient, type ApiResponse, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// Keyset paging (issue 11): next_token carries the last row's sort key and id, so paging through
// a whole result with next_token returns every row exactly once, also when many rows share the
// sort key and when the key is missing (nulls) for some, in both directions. Forged tokens are 400s.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
/** Alice's datasets: 4 groups of 3 ties under metadata.group and 3 without it; names tie in pairs. */
let ids: string[];

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["alice", "bob"]);
  ids = [];
  for (let i = 0; i < 15; i++) {
    const metadata = i < 12 ? { group: i % 4 } : {};
    const res = await alice.client.post("/v1/datasets", { name: `pair-${Math.floor(i / 2)}`, metadata });
    expect(res.status).toBe(200);
    ids.push(res.body.data.dataset_id);
  }
  expect((await bob.client.post("/v1/datasets", { name: "pair-0", metadata: { group: 0 } })).status).toBe(200);
});
afterAll(() => t?.close());

/** Follows next_token (as body `after`) until it is null; returns the ids of every page in order. */
async function pageThrough(client: ApiClient, spec: Record<string, unknown>): Promise<string[][]> {
  const pages: string[][] = [];
  let after: string | null = null;
  do {
    const res: ApiResponse = await client.post("/v1/datasets/query", { ...spec, ...(after ? { after } : {}) });
    expect(res.status).toBe(200);
    pages.push(res.body.data.items.map((d: { dataset_id: string }) => d.dataset_id));
    after = res.body.data.next_token;
  } while (after && pages.length <= 20);
  return pages;
}

describe("paging a whole result with next_token", () => {
  test.each([
    ["metadata.group", "ASC"],
    ["metadata.group", "DESC"],
    ["name", "ASC"],
    ["name", "DESC"],
    ["created", "DESC"],
  ])("sorted by %s %s (ties and missing values): every dataset exactly once, in order", async (sortBy, sortDirection) => {
    const pages = await pageThrough(alice.client, { sort_by: sortBy, sort_direction: sortDirection, limit: 2 });
    const seen = pages.flat();
    expect(pages.slice(0, -1).every((p) => p.length === 2)).toBe(true);
    expect([...seen].sort()).toEqual([...ids].sort());
    const onePage = await pageThrough(alice.client, { sort_by: sortBy, sort_direction: sortDirection, limit: 100 });
    expect(seen).toEqual(onePage[0]);
  });

  test("a condition holds across pages", async () => {
    const pages = await pageThrough(alice.client, { condition: { field: "metadata.group", comparator: "EQUALS", value: 1 }, sort_by: "name", limit: 1 });
    expect(pages.flat().sort()).toEqual([ids[1], ids[5], ids[9]].sort());
  });
});

describe("forged page tokens are 400s naming `after`", () => {
  const forge = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString("base64url");

  test.each([
    ["a timestamp key that is not one", { k: "yesterday", i: "ds_x" }, "created"],
    ["a number key that is not one", { k: "1e999999", i: "ds_x" }, "metadata.group"],
    ["a JSON key that is not JSON", { k: "{", i: "ds_x" }, "metadata.group"],
    ["a key with a NUL", { k: "a\u0000b", i: "ds_x" }, "name"],
  ])("%s", async (_, cursor, sortBy) => {
    const first = await alice.client.post("/v1/datasets/query", { sort_by: sortBy, limit: 1 });
    const fingerprint = JSON.parse(Buffer.from(first.body.data.next_token, "base64url").toString()).f;
    const res = await alice.client.post("/v1/datasets/query", { sort_by: sortBy, limit: 1, after: forge({ ...cursor, f: fingerprint }) });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("after");
  });

  test("another org's caller cannot read alice's rows with alice's token", async () => {
    const first = await alice.client.post("/v1/datasets/query", { sort_by: "name", limit: 1 });
    const res = await bob.client.post("/v1/datasets/query", { sort_by: "name", limit: 5, after: first.body.data.next_token });
    expect(res.status).toBe(200);
    expect(res.body.data.items.every((d: { org_id: string }) => d.org_id === bob.orgId)).toBe(true);
  });
});
