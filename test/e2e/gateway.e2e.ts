import { randomBytes } from "node:crypto";
import { Client } from "pg";
import { apiClient, expectError, startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// The gateway's generic behaviour, seen over HTTP: routing, request transcoding, the response and
// error envelopes. Dataset and identity routes serve as vehicles.

let t: TestPlatform;
let alice: TestTenant;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["alice"]);
});
afterAll(() => t?.close());

/** GETs a path as alice and returns the body text unparsed, to look at how numbers are written. */
async function rawText(path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${alice.token}` } });
  return { status: res.status, text: await res.text() };
}

async function createDataset(name: string): Promise<{ dataset_id: string }> {
  const res = await alice.client.post("/v1/datasets", { name });
  if (res.status !== 200) throw new Error(`create dataset failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

describe("routing", () => {
  test("an unknown route is a 404 with the error envelope and nothing else", async () => {
    const res = await alice.client.get("/v1/no-such-thing");
    expectError(res, 404, "no operation at GET /v1/no-such-thing");
    expect(res.headers.get("content-type")).toBe("application/json");
  });

  test("an unknown route is a 404 even without credentials", async () => {
    expectError(await apiClient(t.url).post("/v2/datasets", {}), 404, "no operation at POST /v2/datasets");
  });

  test("a known path with a wrong method is a 405 that lists the allowed methods in Allow", async () => {
    const res = await alice.client.raw("PATCH", "/v1/datasets/ds_abc", "{}");
    expectError(res, 405, "method PATCH is not allowed on /v1/datasets/ds_abc");
    expect(res.headers.get("allow")).toBe("DELETE, GET, PUT");
  });

  test("a literal-only path with a wrong method is a 405 too", async () => {
    const res = await alice.client.post("/v1/orgs/caller", {});
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });

  test("a literal segment beats {param}: POST /v1/datasets/query is query_datasets", async () => {
    await createDataset("routed");
    const res = await alice.client.post("/v1/datasets/query", {});
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(expect.objectContaining({ items: expect.any(Array), next_token: null, total_count: expect.any(Number) }));
  });

  test("a literal segment beats {param}: GET /v1/datasets/metadata/keys lists metadata keys", async () => {
    await alice.client.post("/v1/datasets", { name: "keyed", metadata: { vehicle: "v1" } });
    const res = await alice.client.get("/v1/datasets/metadata/keys");
    expect(res.status).toBe(200);
    expect(res.body.data).toContain("vehicle");
  });

  test("the literal's text still reaches {param} under the other methods", async () => {
    expectError(await alice.client.get("/v1/datasets/query"), 404, "dataset 'query' not found");
  });

  test("a trailing slash is ignored", async () => {
    const res = await alice.client.get("/v1/users/whoami/");
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(alice.userId);
  });

  test("a query string is not part of the route, and unknown parameters are ignored", async () => {
    const res = await alice.client.get("/v1/users/whoami?colour=red&page_token=None");
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(alice.userId);
  });
});

describe("path parameters", () => {
  test("a percent-encoded segment is decoded exactly once", async () => {
    const userId = `pct%41-${randomBytes(3).toString("hex")}@example.com`;
    expect((await t.admin.post("/v1/users", { user_id: userId, org_id: alice.orgId })).status).toBe(200);
    const res = await alice.client.get(`/v1/users/id/${encodeURIComponent(userId)}`);
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(userId);
  });

  test("an encoded slash stays inside its segment", async () => {
    const userId = `robots/arm-${randomBytes(3).toString("hex")}`;
    expect((await t.admin.post("/v1/users", { user_id: userId, org_id: alice.orgId })).status).toBe(200);
    const res = await alice.client.get(`/v1/users/id/${encodeURIComponent(userId)}`);
    expect(res.status).toBe(200);
    expect(res.body.data.user_id).toBe(userId);
  });

  test("an invalid percent-escape is a 400", async () => {
    expectError(await alice.client.get("/v1/datasets/%E0%A4%A"), 400, "invalid percent-encoding in path segment '%E0%A4%A'");
  });

  test("an encoded NUL in a path segment is a 400 naming the parameter", async () => {
    expectError(await alice.client.get("/v1/datasets/ds_%00"), 400, "dataset_id: must not contain the NUL character (U+0000)");
  });
});

describe("request bodies", () => {
  test("malformed JSON is a 400", async () => {
    expectError(await alice.client.raw("POST", "/v1/datasets", '{"name": "x",'), 400, /^malformed JSON: /);
  });

  test("a body that is not UTF-8 is a 400, and nothing is written", async () => {
    const before = (await alice.client.post("/v1/datasets/query", {})).body.data.total_count;
    const body = Buffer.concat([Buffer.from('{"name": "bad'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await fetch(`${t.url}/v1/datasets`, { method: "POST", headers: { authorization: `Bearer ${alice.token}` }, body });
    expectError({ status: res.status, body: await res.json(), headers: res.headers }, 400, "request body is not valid UTF-8");
    expect((await alice.client.post("/v1/datasets/query", {})).body.data.total_count).toBe(before);
  });

  test("a lone surrogate escape in a string is a 400 naming the field", async () => {
    expectError(await alice.client.raw("POST", "/v1/datasets", '{"name": "a\\ud800"}'), 400, "name: must not contain a lone UTF-16 surrogate");
  });

  test("a number past the double range is a 400 naming the field", async () => {
    expectError(await alice.client.raw("POST", "/v1/datasets", '{"name": "x", "metadata": {"n": 1e400}}'), 400, 'metadata["n"]: number out of range');
  });

  test("a body that is not a JSON object is a 400", async () => {
    expectError(await alice.client.raw("POST", "/v1/datasets", '["name"]'), 400, "request body must be a JSON object");
  });

  test.each([
    ["/v1/datasets", { name: 5 }, "name: expected string"],
    ["/v1/datasets", { name: "x", tags: "a" }, "tags: expected array"],
    ["/v1/datasets", { name: "x", tags: ["a", 2] }, "tags[1]: expected string"],
    ["/v1/datasets", { name: "x", metadata: ["a"] }, "metadata: expected object"],
    ["/v1/tokens", { name: "x", expiry_days: "seven" }, "expiry_days: expected integer"],
    ["/v1/tokens", { name: "x", expiry_days: 1.5 }, "expiry_days: expected integer"],
    ["/v1/tokens", { name: ["x"], expiry_days: 1 }, "name: expected string"],
    ["/v1/users", { user_id: "u@example.com", is_service_user: "yes" }, "is_service_user: expected boolean"],
  ])("POST %s with %j is a 400: %s", async (path, body, message) => {
    expectError(await alice.client.post(path, body), 400, message);
  });

  test("on a route whose body is one field (the QuerySpecification), errors name fields from the body", async () => {
    expectError(await alice.client.post("/v1/datasets/query", { limit: "many" }), 400, "limit: expected integer");
  });

  test("on a route whose body is one field, a body that is not an object is a 400", async () => {
    expectError(await alice.client.raw("POST", "/v1/datasets/query", "[]"), 400, "request body must be a JSON object");
  });

  test("a missing required field is a 400 naming it", async () => {
    expectError(await alice.client.post("/v1/tokens", { expiry_days: 1 }), 400, "name: is required");
  });

  test("a required field sent as null is missing", async () => {
    expectError(await alice.client.post("/v1/tokens", { name: null, expiry_days: 1 }), 400, "name: is required");
  });

  test("an empty body on a route that takes one reads as {}", async () => {
    expectError(await alice.client.raw("POST", "/v1/tokens", ""), 400, "expiry_days: is required");
  });

  test("unknown body fields are ignored", async () => {
    const res = await alice.client.post("/v1/datasets", { name: "extra", colour: "red", nested: { deep: [1, 2] }, dataset_id: 7 });
    expect(res.status).toBe(200);
    expect(res.body.data.name).toBe("extra");
    expect(res.body.data.dataset_id).toMatch(/^ds_/);
  });

  test("null for any field is treated as the default", async () => {
    const body = { name: "nulls", description: null, device_id: null, metadata: null, tags: null, custom_fields: null };
    const res = await alice.client.post("/v1/datasets", body);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(expect.objectContaining({ name: "nulls", description: null, device_id: null, metadata: {}, tags: [], custom_fields: {} }));
  });

  test("null for an optional field of an identity create is the default too", async () => {
    const res = await alice.client.post("/v1/tokens", { name: "n", expiry_days: 1, description: null, api_scopes: null });
    expect(res.status).toBe(200);
    expect(res.body.data.context.description).toBeNull();
  });

  test("a 64-bit integer past its range is a 400 naming the field", async () => {
    expectError(await alice.client.raw("POST", "/v1/tokens", '{"name":"x","expiry_days":9223372036854775808}'), 400, "expiry_days: out of range for int64");
  });

  test("the largest 64-bit integer is read exactly (then refused by the operation's own limit)", async () => {
    expectError(await alice.client.raw("POST", "/v1/tokens", '{"name":"x","expiry_days":9223372036854775807}'), 400, "expiry_days: must be from 1 to 3650");
  });

  test("a NUL character in a string field is a 400 naming the field", async () => {
    expectError(await t.admin.post("/v1/orgs", { name: "a\u0000b" }), 400, "name: must not contain the NUL character (U+0000)");
  });

  test("a NUL character inside arbitrary JSON is a 400 naming its place", async () => {
    expectError(await alice.client.post("/v1/datasets", { name: "x", metadata: { a: ["ok", "b\u0000"] } }), 400, 'metadata["a"][1]: must not contain the NUL character (U+0000)');
  });

  test("a NUL character in a key of arbitrary JSON is a 400", async () => {
    const res = await alice.client.post("/v1/datasets", { name: "x", metadata: { "k\u0000": 1 } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^metadata\[.*\]: must not contain the NUL character \(U\+0000\)$/);
  });

  test("a __proto__ key in arbitrary JSON is kept as plain data", async () => {
    const res = await alice.client.raw("POST", "/v1/datasets", '{"name":"proto","metadata":{"__proto__":{"polluted":true}}}');
    expect(res.status).toBe(200);
    const { text } = await rawText(`/v1/datasets/${res.body.data.dataset_id}`);
    expect(text).toContain('"metadata":{"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("a body nested deeper than 40 levels is a 400 (a JSON field's own limit is 32, named by the services)", async () => {
    const deep = '{"a":'.repeat(40) + "1" + "}".repeat(40);
    expectError(await alice.client.raw("POST", "/v1/datasets", `{"name":"deep","metadata":${deep}}`), 400, "request body nests arrays and objects deeper than 40 levels");
  });

  test("a body nested 32 levels deep is accepted", async () => {
    const deep = '{"a":'.repeat(30) + "[1]" + "}".repeat(30);
    const res = await alice.client.raw("POST", "/v1/datasets", `{"name":"deep-ok","metadata":${deep}}`);
    expect(res.status).toBe(200);
  });

  test("none of a battery of bad inputs yields a 5xx", async () => {
    const tooDeep = "[".repeat(50_000) + "]".repeat(50_000);
    const attempts: [string, string, string][] = [
      ["POST", "/v1/datasets", tooDeep],
      ["POST", "/v1/datasets", `{"name":"x","metadata":${tooDeep}}`],
      ["POST", "/v1/datasets", `{"name":"x","n":99999999999999999999${"]".repeat(3)}`],
      ["POST", "/v1/datasets", "\u0000"],
      ["POST", "/v1/orgs", '{"name":"\\u0000"}'],
      ["POST", "/v1/tokens", '{"name":"x","expiry_days":1e400}'],
      ["POST", "/v1/tokens", '{"name":"x","expiry_days":-9223372036854775809}'],
      ["PUT", `/v1/orgs/id/${alice.orgId}/users/id/x`, '{"add_roles":"owner"}'],
      ["PUT", `/v1/orgs/id/${alice.orgId}/users/id/x`, '{"add_roles":[null]}'],
      ["POST", "/v1/users", '{"user_id":"' + "u".repeat(10_000) + '"}'],
      ["POST", "/v1/users", '{"user_id":"x","org_id":"og_\\u0000"}'],
      ["GET", "/v1/users/id/%00", ""],
      ["GET", "/v1/datasets/%FF", ""],
      ["GET", `/v1/datasets/${"x".repeat(4_000)}`, ""],
      ["DELETE", "/v1/tokens/id/%2F..%2F..", ""],
      ["POST", "/v1/datasets/query", '{"limit":"many"}'],
      ["POST", "/v1/datasets/query", '{"condition":{"field":"name","comparator":"NOPE","value":1}}'],
    ];
    const statuses: [string, number][] = [];
    for (const [method, path, body] of attempts) {
      const res = method === "GET" ? await alice.client.get(path) : await alice.client.raw(method, path, body);
      statuses.push([`${method} ${path.slice(0, 40)} ${body.slice(0, 60)}`, res.status]);
    }
    expect(statuses.filter(([, status]) => status >= 500)).toEqual([]);
    expect(statuses.filter(([, status]) => status < 400)).toEqual([]);
  });
});

describe("responses", () => {
  test("an operation without payload answers {data: null} (delete_dataset)", async () => {
    const ds = await createDataset("doomed");
    const res = await alice.client.delete(`/v1/datasets/${ds.dataset_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: null });
    expect(res.headers.get("content-type")).toBe("application/json");
  });

  test("int64 fields are bare JSON numbers (service_record_version)", async () => {
    const ds = await createDataset("numbers");
    const { status, text } = await rawText(`/v1/datasets/${ds.dataset_id}`);
    expect(status).toBe(200);
    expect(text).toContain('"service_record_version":1,');
  });

  test("int64 page counts are bare JSON numbers (total_count)", async () => {
    await createDataset("counted");
    const res = await fetch(`${t.url}/v1/datasets/query`, { method: "POST", headers: { authorization: `Bearer ${alice.token}` }, body: "{}" });
    expect(await res.text()).toMatch(/"total_count":\d+\}\}$/);
  });

  test("int64 values are written exactly, up to 2**63 - 1", async () => {
    const db = new Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      await db.query("insert into admin.usage (org_id, resource_name, quantity) values ($1, 'test::largest', 9223372036854775807)", [alice.orgId]);
    } finally {
      await db.end();
    }
    const { status, text } = await rawText(`/v1/orgs/id/${alice.orgId}/usage`);
    expect(status).toBe(200);
    expect(text).toContain(`{"resource_name":"test::largest","quantity":9223372036854775807,"principal":{"id":"${alice.orgId}","scope":"org"}}`);
  });

  test("a success body is {data: ...} and nothing else", async () => {
    const res = await alice.client.get("/v1/orgs/caller");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["data"]);
  });
});
