import {
  createTenant,
  expectBadRequest,
  startWithTenants,
  type ApiClient,
  type ApiResponse,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// query_datasets (POST /v1/datasets/query, QuerySpecification body, next page via body `after`)
// and its sibling list_dataset_metadata_keys (GET /v1/datasets/metadata/keys).
// Each describe block has a tenant of its own, so counts and orders are exact.

let t: TestPlatform;
/** Another org holding look-alikes of the fixtures; they must never show up. */
let bob: TestTenant;

beforeAll(async () => {
  [t, bob] = await startWithTenants(["bob"]);
  await createInOrder(bob.client, [
    { name: "alpha", metadata: { vehicle: { id: "v1", speed: 5 }, rank: 3, site: "lab-north" }, tags: ["warehouse", "outdoor"] },
    { name: "p0", metadata: { rank: 0, bobonly: true } },
  ]);
});
afterAll(() => t?.close());

interface Page {
  items: any[];
  next_token: string | null;
  total_count: number | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates datasets one after the other, a few milliseconds apart so `created` orders them. */
async function createInOrder(client: ApiClient, bodies: Record<string, unknown>[]): Promise<any[]> {
  const created = [];
  for (const body of bodies) {
    const res = await client.post("/v1/datasets", body);
    expect(res.status).toBe(200);
    created.push(res.body.data);
    await sleep(3);
  }
  return created;
}

function query(client: ApiClient, spec: unknown): Promise<ApiResponse> {
  return client.post("/v1/datasets/query", spec);
}

async function page(client: ApiClient, spec: Record<string, unknown>): Promise<Page> {
  const res = await query(client, spec);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body.data).sort()).toEqual(["items", "next_token", "total_count"]);
  return res.body.data;
}

/** Follows next_token (as body `after`) until it is null; returns every page. */
async function allPages(client: ApiClient, spec: Record<string, unknown>): Promise<Page[]> {
  const pages = [await page(client, spec)];
  while (pages[pages.length - 1]!.next_token !== null) {
    expect(pages.length).toBeLessThan(50);
    pages.push(await page(client, { ...spec, after: pages[pages.length - 1]!.next_token }));
  }
  return pages;
}



describe("query_datasets conditions", () => {
  let finder: TestTenant;
  /** Fixture label (d1..d4) by dataset id. */
  const labels = new Map<string, string>();
  let fixtures: any[];

  beforeAll(async () => {
    finder = await createTenant(t, "finder");
    fixtures = await createInOrder(finder.client, [
      {
        name: "alpha",
        description: "first",
        device_id: "robot-1",
        metadata: { vehicle: { id: "v1", speed: 5 }, rank: 3, site: "lab-north", flags: ["a", "b"], note: null, ok: true, recorded: "2025-01-10T00:00:00Z" },
        tags: ["warehouse", "outdoor"],
      },
      {
        name: "beta",
        metadata: { vehicle: { id: "v2", speed: 12.5 }, rank: 1, site: "lab-south", ok: false, recorded: "2025-03-01T00:00:00Z" },
        tags: ["warehouse"],
      },
      { name: "gamma_1", description: "third", metadata: { vehicle: { id: "v1" }, rank: 2, site: "field", flags: ["c"] } },
      { tags: ["outdoor"] },
    ]);
    fixtures.forEach((ds, i) => labels.set(ds.dataset_id, `d${i + 1}`));
  });

  /** The labels of the fixtures matching `condition`, oldest first; the page must be complete. */
  async function matching(condition: unknown): Promise<string[]> {
    const result = await page(finder.client, { condition, sort_by: "created", sort_direction: "ASC" });
    expect(result.next_token).toBeNull();
    expect(result.total_count).toBe(result.items.length);
    return result.items.map((d) => labels.get(d.dataset_id) ?? `foreign:${d.dataset_id}`);
  }

  const cond = (field: string, comparator: string, value?: unknown) => (value === undefined ? { field, comparator } : { field, comparator, value });

  test("items are whole Dataset records, equal to what get_dataset returns", async () => {
    const result = await page(finder.client, { condition: cond("name", "EQUALS", "alpha") });
    expect(result.items).toEqual([fixtures[0]]);
    expect((await finder.client.get(`/v1/datasets/${fixtures[0].dataset_id}`)).body.data).toEqual(result.items[0]);
  });

  test("no condition, or a null one, matches every dataset of the org", async () => {
    expect(await matching(undefined)).toEqual(["d1", "d2", "d3", "d4"]);
    expect(await matching(null)).toEqual(["d1", "d2", "d3", "d4"]);
  });

  test.each<[string, unknown, string[]]>([
    ["EQUALS", cond("name", "EQUALS", "alpha"), ["d1"]],
    ["NOT_EQUALS (a null name is not equal)", cond("name", "NOT_EQUALS", "alpha"), ["d2", "d3", "d4"]],
    ["GREATER_THAN", cond("name", "GREATER_THAN", "beta"), ["d3"]],
    ["GREATER_THAN_OR_EQUAL", cond("name", "GREATER_THAN_OR_EQUAL", "beta"), ["d2", "d3"]],
    ["LESS_THAN", cond("name", "LESS_THAN", "beta"), ["d1"]],
    ["LESS_THAN_OR_EQUAL", cond("name", "LESS_THAN_OR_EQUAL", "beta"), ["d1", "d2"]],
    ["CONTAINS (substring)", cond("name", "CONTAINS", "amm"), ["d3"]],
    ["NOT_CONTAINS (`_` is a literal)", cond("name", "NOT_CONTAINS", "a_"), ["d1", "d2", "d4"]],
    ["IS_NULL", cond("description", "IS_NULL"), ["d2", "d4"]],
    ["IS_NOT_NULL", cond("name", "IS_NOT_NULL"), ["d1", "d2", "d3"]],
    ["EXISTS (a column always exists)", cond("name", "EXISTS"), ["d1", "d2", "d3", "d4"]],
    ["NOT_EXISTS (a column always exists)", cond("name", "NOT_EXISTS"), []],
    ["BEGINS_WITH", cond("name", "BEGINS_WITH", "gam"), ["d3"]],
    ["BEGINS_WITH (`_` is a literal)", cond("name", "BEGINS_WITH", "gamma_"), ["d3"]],
    ["LIKE with %", cond("name", "LIKE", "%a"), ["d1", "d2"]],
    ["LIKE with _", cond("name", "LIKE", "_eta"), ["d2"]],
    ["NOT_LIKE", cond("name", "NOT_LIKE", "%a"), ["d3", "d4"]],
    ["EQUALS on device_id", cond("device_id", "EQUALS", "robot-1"), ["d1"]],
    ["a `dataset.` qualified column", cond("dataset.name", "EQUALS", "beta"), ["d2"]],
  ])("on a column: %s", async (_, condition, expected) => {
    expect(await matching(condition)).toEqual(expected);
  });

  test("on `created`: GREATER_THAN and LESS_THAN_OR_EQUAL an ISO date-time", async () => {
    expect(await matching(cond("created", "GREATER_THAN", fixtures[1].created))).toEqual(["d3", "d4"]);
    expect(await matching(cond("created", "LESS_THAN_OR_EQUAL", fixtures[1].created))).toEqual(["d1", "d2"]);
  });

  test.each<[string, unknown, string[]]>([
    ["CONTAINS is membership", cond("tags", "CONTAINS", "outdoor"), ["d1", "d4"]],
    ["NOT_CONTAINS", cond("tags", "NOT_CONTAINS", "warehouse"), ["d3", "d4"]],
    ["CONTAINS matches whole tags only", cond("tags", "CONTAINS", "ware"), []],
    ["a `dataset.` qualified field", cond("dataset.tags", "CONTAINS", "warehouse"), ["d1", "d2"]],
  ])("on tags: %s", async (_, condition, expected) => {
    expect(await matching(condition)).toEqual(expected);
  });

  test.each<[string, unknown, string[]]>([
    ["EQUALS a string at a nested path", cond("metadata.vehicle.id", "EQUALS", "v1"), ["d1", "d3"]],
    ["EQUALS with a `dataset.` prefix", cond("dataset.metadata.vehicle.id", "EQUALS", "v1"), ["d1", "d3"]],
    ["NOT_EQUALS (a missing path is not equal)", cond("metadata.vehicle.id", "NOT_EQUALS", "v1"), ["d2", "d4"]],
    ["EQUALS a number", cond("metadata.rank", "EQUALS", 2), ["d3"]],
    ["EQUALS true", cond("metadata.ok", "EQUALS", true), ["d1"]],
    ["EQUALS false", cond("metadata.ok", "EQUALS", false), ["d2"]],
    ["GREATER_THAN", cond("metadata.rank", "GREATER_THAN", 1), ["d1", "d3"]],
    ["GREATER_THAN_OR_EQUAL", cond("metadata.rank", "GREATER_THAN_OR_EQUAL", 2), ["d1", "d3"]],
    ["LESS_THAN", cond("metadata.rank", "LESS_THAN", 3), ["d2", "d3"]],
    ["LESS_THAN_OR_EQUAL", cond("metadata.rank", "LESS_THAN_OR_EQUAL", 1), ["d2"]],
    ["GREATER_THAN a decimal", cond("metadata.vehicle.speed", "GREATER_THAN", 10), ["d2"]],
    ["GREATER_THAN an ISO date string", cond("metadata.recorded", "GREATER_THAN", "2025-02-01T00:00:00Z"), ["d2"]],
    ["CONTAINS a substring of a string", cond("metadata.site", "CONTAINS", "lab"), ["d1", "d2"]],
    ["CONTAINS is membership in a list", cond("metadata.flags", "CONTAINS", "a"), ["d1"]],
    ["NOT_CONTAINS", cond("metadata.flags", "NOT_CONTAINS", "a"), ["d2", "d3", "d4"]],
    ["a numeric segment indexes a list", cond("metadata.flags.0", "EQUALS", "c"), ["d3"]],
    ["BEGINS_WITH", cond("metadata.site", "BEGINS_WITH", "lab-"), ["d1", "d2"]],
    ["LIKE", cond("metadata.site", "LIKE", "%south"), ["d2"]],
    ["NOT_LIKE", cond("metadata.site", "NOT_LIKE", "lab%"), ["d3", "d4"]],
    ["IS_NULL (null or missing)", cond("metadata.note", "IS_NULL"), ["d1", "d2", "d3", "d4"]],
    ["IS_NOT_NULL", cond("metadata.vehicle.speed", "IS_NOT_NULL"), ["d1", "d2"]],
    ["EXISTS (a null value exists)", cond("metadata.note", "EXISTS"), ["d1"]],
    ["EXISTS on an object", cond("metadata.vehicle", "EXISTS"), ["d1", "d2", "d3"]],
    ["NOT_EXISTS", cond("metadata.note", "NOT_EXISTS"), ["d2", "d3", "d4"]],
  ])("on metadata: %s", async (_, condition, expected) => {
    expect(await matching(condition)).toEqual(expected);
  });

  test.each<[string, unknown, string[]]>([
    ["AND", { operator: "AND", conditions: [cond("tags", "CONTAINS", "warehouse"), cond("metadata.rank", "GREATER_THAN", 1)] }, ["d1"]],
    ["OR", { operator: "OR", conditions: [cond("name", "EQUALS", "alpha"), cond("name", "EQUALS", "gamma_1")] }, ["d1", "d3"]],
    ["NOT of one condition", { operator: "NOT", conditions: [cond("tags", "CONTAINS", "warehouse")] }, ["d3", "d4"]],
    ["NOT means none of its conditions match", { operator: "NOT", conditions: [cond("name", "EQUALS", "alpha"), cond("name", "EQUALS", "beta")] }, ["d3", "d4"]],
    [
      "OR of an AND and a NOT",
      {
        operator: "OR",
        conditions: [
          { operator: "AND", conditions: [cond("metadata.vehicle.id", "EQUALS", "v1"), cond("metadata.rank", "GREATER_THAN_OR_EQUAL", 3)] },
          { operator: "NOT", conditions: [cond("metadata.vehicle", "EXISTS")] },
        ],
      },
      ["d1", "d4"],
    ],
    [
      "AND of an OR and a NOT of an OR",
      {
        operator: "AND",
        conditions: [
          { operator: "OR", conditions: [cond("tags", "CONTAINS", "outdoor"), cond("tags", "CONTAINS", "warehouse")] },
          { operator: "NOT", conditions: [{ operator: "OR", conditions: [cond("name", "EQUALS", "beta"), cond("name", "IS_NULL")] }] },
        ],
      },
      ["d1"],
    ],
    ["a group of one condition", { operator: "AND", conditions: [cond("name", "EQUALS", "beta")] }, ["d2"]],
  ])("groups: %s", async (_, condition, expected) => {
    expect(await matching(condition)).toEqual(expected);
  });

  test("another org's look-alike datasets never appear and never count", async () => {
    expect(await matching(cond("name", "EQUALS", "alpha"))).toEqual(["d1"]);
    expect((await page(finder.client, {})).total_count).toBe(4);
  });

  test("unknown body fields are ignored, in the body and in a condition", async () => {
    const res = await query(finder.client, {
      condition: { field: "name", comparator: "EQUALS", value: "alpha", note: "x" },
      max_results: null,
      content_mode: "record_only",
      extra: { nested: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((d: any) => d.dataset_id)).toEqual([fixtures[0].dataset_id]);
  });
});

describe("query_datasets refuses bad conditions with a 400 naming the field", () => {
  let critic: TestTenant;

  beforeAll(async () => {
    critic = await createTenant(t, "critic");
    await createInOrder(critic.client, [{ name: "only" }]);
  });

  const ok = { field: "name", comparator: "EQUALS", value: "only" };

  test.each<[string, unknown, string]>([
    ["an unknown comparator", { field: "name", comparator: "EQ", value: "x" }, "condition.comparator"],
    ["an unknown comparator in a group", { operator: "AND", conditions: [ok, { field: "name", comparator: "ABOUT", value: "x" }] }, "condition.conditions[1].comparator"],
    ["an empty condition group", { operator: "AND", conditions: [] }, "condition.conditions"],
    ["a nested empty group", { operator: "OR", conditions: [{ operator: "NOT", conditions: [] }] }, "condition.conditions[0].conditions"],
    ["an unknown operator", { operator: "XOR", conditions: [ok] }, "condition.operator"],
    ["an unknown field", { field: "colour", comparator: "EQUALS", value: "red" }, "condition.field"],
    ["an unknown field in a group", { operator: "OR", conditions: [{ field: "colour", comparator: "EXISTS" }, ok] }, "condition.conditions[0].field"],
    ["a field that is not a dot path", { field: "name; drop table datasets", comparator: "EXISTS" }, "condition.field"],
    ["a missing field", { comparator: "EXISTS" }, "condition.field"],
    ["a missing value", { field: "name", comparator: "EQUALS" }, "condition.value"],
    ["a list value", { field: "tags", comparator: "CONTAINS", value: ["a"] }, "condition.value"],
    ["an object value", { field: "name", comparator: "EQUALS", value: { a: 1 } }, "condition.value"],
    ["a comparator that does not apply to tags", { field: "tags", comparator: "BEGINS_WITH", value: "a" }, "condition.comparator"],
    ["a value that is not a date-time for created", { field: "created", comparator: "GREATER_THAN", value: "yesterday" }, "condition.value"],
    ["a condition that is a string", "name = 'only'", "condition"],
    ["a condition with both group and condition keys", { operator: "AND", field: "name" }, "condition"],
  ])("%s", async (_, condition, field) => {
    expectBadRequest(await query(critic.client, { condition }), field);
  });

  test("a body that is not a JSON object is a 400", async () => {
    const res = await critic.client.raw("POST", "/v1/datasets/query", "[]");
    expect(res.status).toBe(400);
    expect(res.body.error.error_code).toBe(400);
  });
});

describe("query_datasets sorting and paging", () => {
  let pager: TestTenant;
  /** p0..p6 in creation order; p6 has no rank. */
  let byLabel: Map<string, string>;
  const RANKS = [0, 3, 6, 2, 5, 1, undefined];

  beforeAll(async () => {
    pager = await createTenant(t, "pager");
    const created = await createInOrder(
      pager.client,
      RANKS.map((rank, i) => ({ name: `p${i}`, metadata: rank === undefined ? {} : { rank } })),
    );
    byLabel = new Map(created.map((ds) => [ds.dataset_id, ds.name]));
  });

  const names = (items: any[]) => items.map((d) => byLabel.get(d.dataset_id) ?? `foreign:${d.dataset_id}`);

  test("the default order is created DESC, and one page holds everything under the default limit", async () => {
    const result = await page(pager.client, {});
    expect(names(result.items)).toEqual(["p6", "p5", "p4", "p3", "p2", "p1", "p0"]);
    expect(result.next_token).toBeNull();
    expect(result.total_count).toBe(7);
  });

  test.each<[string, Record<string, unknown>, string[]]>([
    ["created ASC", { sort_by: "created", sort_direction: "ASC" }, ["p0", "p1", "p2", "p3", "p4", "p5", "p6"]],
    ["created, DESC by default", { sort_by: "created" }, ["p6", "p5", "p4", "p3", "p2", "p1", "p0"]],
    ["name ASC", { sort_by: "name", sort_direction: "ASC" }, ["p0", "p1", "p2", "p3", "p4", "p5", "p6"]],
    ["name DESC", { sort_by: "name", sort_direction: "DESC" }, ["p6", "p5", "p4", "p3", "p2", "p1", "p0"]],
    ["a metadata path ASC, missing values last", { sort_by: "metadata.rank", sort_direction: "ASC" }, ["p0", "p5", "p3", "p1", "p4", "p2", "p6"]],
    ["a metadata path DESC, missing values last", { sort_by: "metadata.rank", sort_direction: "DESC" }, ["p2", "p4", "p1", "p3", "p5", "p0", "p6"]],
    ["explicit nulls mean the defaults", { sort_by: null, sort_direction: null, limit: null, after: null }, ["p6", "p5", "p4", "p3", "p2", "p1", "p0"]],
  ])("sort by %s", async (_, spec, expected) => {
    expect(names((await page(pager.client, spec)).items)).toEqual(expected);
  });

  test("an explicit limit pages through every dataset once, in order, until next_token is null", async () => {
    const pages = await allPages(pager.client, { limit: 3 });
    expect(pages.map((p) => names(p.items))).toEqual([["p6", "p5", "p4"], ["p3", "p2", "p1"], ["p0"]]);
    expect(pages.map((p) => p.total_count)).toEqual([7, 7, 7]);
    expect(pages.map((p) => typeof p.next_token)).toEqual(["string", "string", "object"]);
  });

  test("paging keeps a metadata sort across pages", async () => {
    const spec = { sort_by: "metadata.rank", sort_direction: "ASC", limit: 2 };
    const pages = await allPages(pager.client, spec);
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 2, 1]);
    expect(pages.flatMap((p) => names(p.items))).toEqual(["p0", "p5", "p3", "p1", "p4", "p2", "p6"]);
  });

  test("paging keeps a condition across pages; total_count counts the matches", async () => {
    const condition = { field: "metadata.rank", comparator: "GREATER_THAN_OR_EQUAL", value: 2 };
    const pages = await allPages(pager.client, { condition, sort_by: "name", sort_direction: "ASC", limit: 1 });
    expect(pages.flatMap((p) => names(p.items))).toEqual(["p1", "p2", "p3", "p4"]);
    expect(pages.map((p) => p.total_count)).toEqual([4, 4, 4, 4]);
  });

  test("the same page asked twice is the same", async () => {
    const first = await page(pager.client, { limit: 2 });
    const second = await page(pager.client, { limit: 2, after: first.next_token });
    expect(await page(pager.client, { limit: 2, after: first.next_token })).toEqual(second);
  });

  test('`after: "None"` (a Python client\'s first page) is the first page', async () => {
    expect(await page(pager.client, { limit: 2, after: "None" })).toEqual(await page(pager.client, { limit: 2 }));
  });

  test("a next_token that is not one is a 400 naming `after`", async () => {
    expectBadRequest(await query(pager.client, { limit: 2, after: "not-a-token" }), "after");
    expectBadRequest(await query(pager.client, { limit: 2, after: Buffer.from('{"o":-1,"f":"x"}').toString("base64url") }), "after");
  });

  test("a next_token from a different query is a 400 naming `after`", async () => {
    const first = await page(pager.client, { limit: 2 });
    const otherCondition = { limit: 2, after: first.next_token, condition: { field: "name", comparator: "EXISTS" } };
    expectBadRequest(await query(pager.client, otherCondition), "after");
    expectBadRequest(await query(pager.client, { limit: 2, after: first.next_token, sort_direction: "ASC" }), "after");
    expectBadRequest(await query(pager.client, { limit: 2, after: first.next_token, sort_by: "name" }), "after");
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["limit 0", { limit: 0 }, "limit"],
    ["a negative limit", { limit: -5 }, "limit"],
    ["an unknown sort_direction", { sort_direction: "UP" }, "sort_direction"],
    ["an unknown sort_by field", { sort_by: "colour" }, "sort_by"],
    ["a sort_by that is not a dot path", { sort_by: "name desc" }, "sort_by"],
  ])("%s is a 400 naming the field", async (_, spec, field) => {
    expectBadRequest(await query(pager.client, spec), field);
  });

  test("a limit that is not an integer is a 400 naming `limit`", async () => {
    for (const limit of [1.5, "ten"]) {
      const res = await query(pager.client, { limit });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/\blimit: /);
    }
  });
});

describe("query_datasets across orgs", () => {
  test("another org's datasets are absent from every page and from total_count", async () => {
    const solo = await createTenant(t, "solo");
    const mine = await createInOrder(solo.client, [{ name: "alpha", metadata: { rank: 3 } }, { name: "p0", metadata: { rank: 0 } }]);
    const pages = await allPages(solo.client, { limit: 1 });
    expect(pages.flatMap((p) => p.items.map((d) => d.dataset_id))).toEqual([mine[1].dataset_id, mine[0].dataset_id]);
    expect(pages.map((p) => p.total_count)).toEqual([2, 2]);
  });

  test("naming another org in X-Service-Resource-Owner-Id finds nothing for a non-member", async () => {
    const solo = await createTenant(t, "solo2");
    await createInOrder(solo.client, [{ name: "x" }]);
    const res = await bob.client.post("/v1/datasets/query", {}, { "X-Service-Resource-Owner-Id": solo.orgId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { items: [], next_token: null, total_count: 0 } });
  });

  test("an org without datasets gets an empty page", async () => {
    const empty = await createTenant(t, "empty");
    expect(await page(empty.client, {})).toEqual({ items: [], next_token: null, total_count: 0 });
  });
});

describe("list_dataset_metadata_keys", () => {
  let keeper: TestTenant;

  beforeAll(async () => {
    keeper = await createTenant(t, "keeper");
    await createInOrder(keeper.client, [{ metadata: { zeta: 1, alpha: { nested: 1 } } }, { metadata: { alpha: 2, mid: null } }, {}]);
  });

  async function keys(client: ApiClient): Promise<string[]> {
    const res = await client.get("/v1/datasets/metadata/keys");
    expect(res.status).toBe(200);
    return res.body.data;
  }

  test("lists the distinct top-level keys of the org's datasets, sorted", async () => {
    expect(await keys(keeper.client)).toEqual(["alpha", "mid", "zeta"]);
  });

  test("another org's keys are not listed, and its own are", async () => {
    expect(await keys(keeper.client)).not.toContain("bobonly");
    expect(await keys(bob.client)).toContain("bobonly");
    expect(await keys(bob.client)).not.toContain("zeta");
  });

  test("a key added by an update is listed", async () => {
    const other = await createTenant(t, "keeper2");
    const [ds] = await createInOrder(other.client, [{ metadata: { b: 1 } }]);
    await other.client.put(`/v1/datasets/${ds.dataset_id}`, { metadata_changeset: { put_fields: { "a.deep": 1 } } });
    expect(await keys(other.client)).toEqual(["a", "b"]);
  });

  test("an org without datasets gets an empty list", async () => {
    expect(await keys((await createTenant(t, "nokeys")).client)).toEqual([]);
  });
});
