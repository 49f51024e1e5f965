import { expectBadRequest, startWithTenants, uploadFiles, type ApiClient, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { ok } from "./invocation-fixtures";

// Saved queries and search (rows 213-219): submit a text (RoboQL), spec or term query, follow it to
// `results_available`, read its results page by page (query `next_page_token`) and its count.
// Fixtures: three datasets with topics and message paths, files and an event, in one tenant; a
// second org holds look-alikes that must never show up.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["q-alice", "q-bob"]);
  await fixtures(alice.client, "");
  await fixtures(bob.client, "bob-");
}, 120_000);
afterAll(() => t?.close());

/** d1 (rain, /lidar with float64 points), d2 (sun, /lidar with uint8 points), d3 (rain, /camera with float64 points). */
async function fixtures(client: ApiClient, prefix: string): Promise<void> {
  const datasets = [
    { name: "run-1", metadata: { weather: "rain", robot: "robot-7" }, tags: ["outdoor"], topic: "/lidar", type: "float64", max: 1.5 },
    { name: "run-2", metadata: { weather: "sun" }, tags: ["indoor"], topic: "/lidar", type: "uint8", max: 0.5 },
    { name: "run-3", metadata: { weather: "rain" }, tags: [], topic: "/camera", type: "float64", max: 0.2 },
  ];
  for (const [i, d] of datasets.entries()) {
    const dataset = ok(await client.post("/v1/datasets", { name: d.name, metadata: d.metadata, tags: d.tags }));
    ids[`${prefix}d${i + 1}`] = dataset.dataset_id;
    const topic = ok(
      await client.post("/v1/topics", {
        association: { association_id: dataset.dataset_id, association_type: "dataset" },
        topic_name: d.topic,
        message_paths: [{ message_path: "points", data_type: d.type, canonical_data_type: "number", metadata: { max: d.max } }],
      }),
    );
    ids[`${prefix}t${i + 1}`] = topic.topic_id;
    ids[`${prefix}mp${i + 1}`] = topic.message_paths[0].message_path_id;
  }
  await uploadFiles(client, ids[`${prefix}d1`]!, { "a.csv": "1", "b.bag": "2" });
  await uploadFiles(client, ids[`${prefix}d2`]!, { "c.csv": "3" });
  const event = ok(await client.post("/v1/events/create", { name: "spike", start_time: 10, end_time: 20, associations: [{ association_id: ids[`${prefix}d1`], association_type: "dataset" }] }));
  ids[`${prefix}e1`] = event.event_id;
  const device = ok(await client.post("/v1/devices/create", { device_id: "Robot-7", metadata: { model: "mk2" }, tags: ["arm"] }));
  ids[`${prefix}dv1`] = device.universal_device_id ?? device.device_id;
  ok(await client.post("/v1/devices/create", { device_id: "robot-8", metadata: { model: "mk3" } }));
  const session = ok(await client.post("/v1/sessions", { name: "Morning Drive", description: "lap around the yard", device_ids: ["Robot-7"], tags: ["yard"] }));
  ids[`${prefix}s1`] = session.session_id;
  ids[`${prefix}s2`] = ok(await client.post("/v1/sessions", { name: "evening" })).session_id;
  const collection = ok(await client.post("/v1/collections/create", { name: "Rainy Runs", description: "datasets in the rain", tags: ["weather"], custom_fields: { owner: "ops" } }));
  ids[`${prefix}c1`] = collection.collection_id;
  ids[`${prefix}c2`] = ok(await client.post("/v1/collections/create", { name: "misc" })).collection_id;
}

/** Submits a query and returns its record (after checking it is settled). */
async function submit(client: ApiClient, form: "roboql" | "structured" | "term", body: Record<string, unknown>): Promise<any> {
  const record = ok(await client.post(`/v1/query/submit/${form}`, body));
  expect(record.status).toBe("results_available");
  return record;
}

/** Every result of a query, following next_token; `limit` sets the page size. */
async function results(client: ApiClient, queryId: string, limit?: number): Promise<any[]> {
  const items: any[] = [];
  let token: string | null = null;
  for (let pages = 0; pages < 20; pages++) {
    const query = new URLSearchParams({ ...(token ? { next_page_token: token } : {}), ...(limit ? { limit: String(limit) } : {}) });
    const page = ok(await client.get(`/v1/query/id/${queryId}/results?${query}`));
    expect(Object.keys(page).sort()).toEqual(["items", "next_token", "total_count"]);
    items.push(...page.items);
    token = page.next_token;
    if (!token) return items;
  }
  throw new Error("too many pages");
}

/** The ids (by `key`) a text query over `target` finds, sorted. */
async function find(client: ApiClient, target: string, query: string, key: string): Promise<string[]> {
  const record = await submit(client, "roboql", { query, target });
  return (await results(client, record.query_id)).map((r) => r[key]).sort();
}

const sorted = (...names: string[]) => names.map((n) => ids[n]!).sort();

describe("the query record", () => {
  test("a text query is saved with its context and reaches results_available with its count", async () => {
    const record = await submit(alice.client, "roboql", { query: "metadata.weather = 'rain'", target: "datasets" });
    expect(record).toEqual({
      query_id: expect.stringMatching(/^qr_/),
      org_id: alice.orgId,
      query_ctx: { query_scheme: "query_spec_v1", query: { condition: { field: "metadata.weather", comparator: "EQUALS", value: "rain" } } },
      result_count: 2,
      status: "results_available",
      submitted: expect.any(String),
      submitted_by: alice.userId,
      modified: expect.any(String),
      target: "datasets",
      content_mode: "record_with_meta",
      failure_reason: null,
    });
    expect(ok(await alice.client.get(`/v1/query/id/${record.query_id}`))).toEqual(record);
    expect(ok(await alice.client.get(`/v1/query/id/${record.query_id}/count`))).toBe(2);
    const found = await results(alice.client, record.query_id);
    expect(found.map((d) => d.dataset_id).sort()).toEqual(sorted("d1", "d3"));
    expect(found[0]).toMatchObject({ org_id: alice.orgId, metadata: { weather: "rain" } });
  });

  test("results page with next_page_token, each result once", async () => {
    const record = await submit(alice.client, "structured", { query: { limit: 1 }, target: "datasets" });
    expect(record.result_count).toBe(3);
    const first = ok(await alice.client.get(`/v1/query/id/${record.query_id}/results`));
    expect(first.items).toHaveLength(1);
    expect(first.total_count).toBe(3);
    expect(first.next_token).toEqual(expect.any(String));
    const all = await results(alice.client, record.query_id);
    expect(all.map((d) => d.dataset_id).sort()).toEqual(sorted("d1", "d2", "d3"));
    expect(new Set(all.map((d) => d.dataset_id)).size).toBe(3);
  });

  test("record_only leaves metadata out", async () => {
    const record = await submit(alice.client, "roboql", { query: "name = 'run-1'", target: "datasets", content_mode: "record_only" });
    const [dataset] = await results(alice.client, record.query_id);
    expect(dataset).toMatchObject({ dataset_id: ids["d1"], name: "run-1", metadata: {}, tags: ["outdoor"] });
  });

  test("the count follows later writes (eventually consistent reads)", async () => {
    const record = await submit(alice.client, "roboql", { query: "name = 'late-arrival'", target: "datasets" });
    expect(record.result_count).toBe(0);
    ok(await alice.client.post("/v1/datasets", { name: "late-arrival" }));
    expect(ok(await alice.client.get(`/v1/query/id/${record.query_id}/count`))).toBe(1);
  });
});

describe("the query language across resources", () => {
  test("datasets having a topic named /lidar with a message path of type float64: the same topic", async () => {
    expect(await find(alice.client, "datasets", "topic.topic_name = '/lidar' AND msgpath.data_type = 'float64'", "dataset_id")).toEqual(sorted("d1"));
    expect(await find(alice.client, "datasets", "topic.topic_name = '/lidar'", "dataset_id")).toEqual(sorted("d1", "d2"));
    // The dataset's own metadata beside the topic's fields (compiled apart, as jsonb containment).
    expect(await find(alice.client, "datasets", "metadata.weather = 'rain' AND topic.topic_name = '/lidar' AND msgpath.data_type = 'float64'", "dataset_id")).toEqual(sorted("d1"));
    expect(await find(alice.client, "datasets", "metadata.weather = 'sun' AND topic.topic_name = '/lidar' AND msgpath.data_type = 'float64'", "dataset_id")).toEqual([]);
    expect(await find(alice.client, "datasets", "name LIKE 'run-%' AND dataset.topic.name != '/lidar'", "dataset_id")).toEqual(sorted("d3"));
  });

  test("qualifiers chain and combine with the dataset's own fields", async () => {
    expect(await find(alice.client, "datasets", "dataset.metadata.weather = 'rain' AND (tags CONTAINS 'outdoor' OR topic.name = '/camera')", "dataset_id")).toEqual(sorted("d1", "d3"));
  });

  test("files by their dataset's metadata and their path", async () => {
    const found = await find(alice.client, "files", "dataset.metadata.weather = 'rain' AND path LIKE '%.csv'", "relative_path");
    expect(found).toEqual(["a.csv"]);
  });

  test("topics by a message path's statistic and by their dataset", async () => {
    expect(await find(alice.client, "topics", "msgpaths[points].max > 0.9", "topic_id")).toEqual(sorted("t1"));
    expect(await find(alice.client, "topics", "dataset.metadata.weather = 'rain' AND msgpath.data_type = 'float64'", "topic_id")).toEqual(sorted("t1", "t3"));
  });

  test("message paths by their topic", async () => {
    expect(await find(alice.client, "topic_message_paths", "topic.topic_name = '/lidar' AND data_type = 'float64'", "message_path_id")).toEqual(sorted("mp1"));
  });

  test("events by their dataset", async () => {
    expect(await find(alice.client, "events", "name = 'spike' AND dataset.name = 'run-1'", "event_id")).toEqual(sorted("e1"));
    expect(await find(alice.client, "events", "dataset.name = 'run-2'", "event_id")).toEqual([]);
  });

  test("a spec query and a term query", async () => {
    const spec = await submit(alice.client, "structured", {
      query: { condition: { operator: "AND", conditions: [{ field: "tags", comparator: "CONTAINS", value: "indoor" }] } },
      target: "datasets",
    });
    expect((await results(alice.client, spec.query_id)).map((d) => d.dataset_id)).toEqual([ids["d2"]]);
    const term = await submit(alice.client, "term", { term: "run-3", target: "datasets" });
    expect((await results(alice.client, term.query_id)).map((d) => d.dataset_id)).toEqual([ids["d3"]]);
  });
});

describe("bad input and other orgs", () => {
  test("malformed text is a 400 naming the position", async () => {
    const res = await alice.client.post("/v1/query/submit/roboql", { query: "name = 'x' AND (tags CONTAINS", target: "datasets" });
    expectBadRequest(res, "query");
    expect(res.body.error.message).toBe("query: expected a value, found end of query at position 30");
  });

  test("unknown fields, targets, content modes, sorts and tokens are 400s naming the field", async () => {
    expectBadRequest(await alice.client.post("/v1/query/submit/roboql", { query: "topic.nope = 1", target: "datasets" }), "query.field");
    expectBadRequest(await alice.client.post("/v1/query/submit/roboql", { query: "", target: "robots" }), "target");
    expectBadRequest(await alice.client.post("/v1/query/submit/roboql", { query: "", target: "datasets", content_mode: "all" }), "content_mode");
    expectBadRequest(await alice.client.post("/v1/query/submit/structured", { query: { sort_by: "topic.name" }, target: "datasets" }), "sort_by");
    expectBadRequest(await alice.client.post("/v1/query/submit/structured", { query: { condition: { field: "name" } }, target: "datasets" }), "query.condition.comparator");
    const record = await submit(alice.client, "roboql", { query: "", target: "datasets" });
    expectBadRequest(await alice.client.get(`/v1/query/id/${record.query_id}/results?next_page_token=garbage`), "next_page_token");
  });

  test("another org's caller sees nothing, whatever the text", async () => {
    const record = await submit(alice.client, "roboql", { query: "", target: "datasets" });
    expect((await bob.client.get(`/v1/query/id/${record.query_id}`)).status).toBe(404);
    expect((await bob.client.get(`/v1/query/id/${record.query_id}/results`)).status).toBe(404);
    expect((await bob.client.get(`/v1/query/id/${record.query_id}/count`)).status).toBe(404);
    for (const [target, query] of [
      ["datasets", `org_id = '${alice.orgId}' OR dataset_id = '${ids["d1"]}'`],
      ["files", `dataset.dataset_id = '${ids["d1"]}'`],
      ["topics", `topic_id = '${ids["t1"]}' OR dataset.org_id = '${alice.orgId}'`],
      ["topic_message_paths", `message_path_id = '${ids["mp1"]}'`],
      ["events", `event_id = '${ids["e1"]}'`],
      ["collections", `collection_id = '${ids["c1"]}' OR org_id = '${alice.orgId}'`],
      ["devices", `universal_device_id = '${ids["dv1"]}'`],
      ["sessions", `session_id = '${ids["s1"]}' OR device.universal_device_id = '${ids["dv1"]}'`],
    ] as const) {
      const found = await submit(bob.client, "roboql", { query, target });
      expect({ target, count: found.result_count }).toEqual({ target, count: 0 });
      expect(await results(bob.client, found.query_id)).toEqual([]);
    }
  });
});

describe("collections, devices and sessions", () => {
  test("collections by their fields and custom fields, each result the collection's summary", async () => {
    const record = await submit(alice.client, "roboql", { query: "tags CONTAINS 'weather' AND custom_fields.owner = 'ops'", target: "collections" });
    expect(record.result_count).toBe(1);
    const [found] = await results(alice.client, record.query_id);
    expect(found).toMatchObject({ collection_id: ids["c1"], org_id: alice.orgId, name: "Rainy Runs", resource_count: 0, version: 0, custom_fields: { owner: "ops" } });
    expect(found.resources ?? {}).toEqual({});
    expect(await find(alice.client, "collections", "name LIKE 'mi%'", "collection_id")).toEqual(sorted("c2"));
  });

  test("devices by their own fields and by their sessions", async () => {
    const found = await find(alice.client, "devices", "metadata.model = 'mk2'", "device_id");
    expect(found).toEqual(["Robot-7"]);
    expect(await find(alice.client, "devices", "session.name = 'Morning Drive'", "device_id")).toEqual(["Robot-7"]);
    expect(await find(alice.client, "devices", "tags CONTAINS 'arm' OR device_id = 'robot-8'", "device_id")).toEqual(["Robot-7", "robot-8"]);
  });

  test("sessions by their own fields and by their devices", async () => {
    expect(await find(alice.client, "sessions", "device.device_id = 'Robot-7'", "session_id")).toEqual(sorted("s1"));
    expect(await find(alice.client, "sessions", "status = 'in_progress' AND NOT tags CONTAINS 'yard'", "session_id")).toEqual(sorted("s2"));
    const record = await submit(alice.client, "structured", { query: { sort_by: "created", sort_direction: "ASC", limit: 1 }, target: "sessions" });
    expect(record.result_count).toBe(2);
    expect((await results(alice.client, record.query_id, 1)).map((s) => s.name)).toEqual(["Morning Drive", "evening"]);
  });

  test("record_only leaves custom fields and metadata out of these records too", async () => {
    const record = await submit(alice.client, "roboql", { query: "name = 'Rainy Runs'", target: "collections", content_mode: "record_only" });
    expect((await results(alice.client, record.query_id))[0]).toMatchObject({ name: "Rainy Runs", custom_fields: {} });
    const devices = await submit(alice.client, "roboql", { query: "device_id = 'Robot-7'", target: "devices", content_mode: "record_only" });
    expect((await results(alice.client, devices.query_id))[0]).toMatchObject({ device_id: "Robot-7", metadata: {}, tags: ["arm"] });
  });

  test("an unknown field of these targets is a 400 naming it", async () => {
    expectBadRequest(await alice.client.post("/v1/query/submit/roboql", { query: "device.nope = 1", target: "sessions" }), "query.field");
    expectBadRequest(await alice.client.post("/v1/query/submit/roboql", { query: "topic.name = 'x'", target: "collections" }), "query.field");
  });
});

describe("term queries", () => {
  test("a term matches text fields ignoring case, and a record's id exactly", async () => {
    const term = async (target: string, text: string, key: string) => {
      const record = await submit(alice.client, "term", { term: text, target });
      return (await results(alice.client, record.query_id)).map((r) => r[key]).sort();
    };
    expect(await term("datasets", "RUN-3", "dataset_id")).toEqual(sorted("d3"));
    expect(await term("datasets", ids["d2"]!, "dataset_id")).toEqual(sorted("d2"));
    expect(await term("files", "A.CSV", "relative_path")).toEqual(["a.csv"]);
    expect(await term("topics", "/LIDAR", "topic_id")).toEqual(sorted("t1", "t2"));
    expect(await term("topic_message_paths", "FLOAT64", "message_path_id")).toEqual(sorted("mp1", "mp3"));
    expect(await term("events", "SPIKE", "event_id")).toEqual(sorted("e1"));
    expect(await term("collections", "in the RAIN", "collection_id")).toEqual(sorted("c1"));
    expect(await term("devices", "robot-7", "device_id")).toEqual(["Robot-7"]);
    expect(await term("sessions", "morning drive", "session_id")).toEqual(sorted("s1"));
    expect(await term("sessions", "YARD", "session_id")).toEqual(sorted("s1"));
    expect(await term("datasets", "%", "dataset_id")).toEqual([]);
  });

  test("CONTAINS in the query language ignores case too; LIKE and BEGINS WITH do not", async () => {
    expect(await find(alice.client, "datasets", "name CONTAINS 'RUN-1'", "dataset_id")).toEqual(sorted("d1"));
    expect(await find(alice.client, "datasets", "name LIKE 'RUN-%'", "dataset_id")).toEqual([]);
    expect(await find(alice.client, "datasets", "metadata.robot CONTAINS 'ROBOT'", "dataset_id")).toEqual(sorted("d1"));
  });
});

describe("get_query_value_counts", () => {
  const submitCounting = (target: string, valueCounts: Record<string, unknown>, condition?: Record<string, unknown>) =>
    alice.client.post("/v1/query/submit/structured", { query: condition ? { condition } : {}, target, value_counts: valueCounts });
  const runs = { field: "name", comparator: "LIKE", value: "run-%" };
  const valueCounts = async (queryId: string) => ok(await alice.client.get(`/v1/query/id/${queryId}/value-counts`));

  test("counts a metadata value over the matches, most common first, with first and last times", async () => {
    const record = ok(await submitCounting("datasets", { field: "metadata.weather", time_field: "created" }, runs));
    const counts = await valueCounts(record.query_id);
    expect(counts).toEqual({
      field: "metadata.weather",
      matched: 3,
      without_value: 0,
      distinct_values: 2,
      values: [
        { value: "rain", count: 2, first_time: expect.stringMatching(/^\d{4}-/), last_time: expect.stringMatching(/^\d{4}-/) },
        { value: "sun", count: 1, first_time: expect.any(String), last_time: expect.any(String) },
      ],
    });
    expect(Date.parse(counts.values[0].first_time)).toBeLessThan(Date.parse(counts.values[0].last_time));
  });

  test("a list field counts each member; limit keeps the most common, equal counts in ascending order", async () => {
    const record = ok(await submitCounting("datasets", { field: "tags", limit: 1 }, runs));
    expect(await valueCounts(record.query_id)).toEqual({
      field: "tags",
      matched: 3,
      without_value: 1,
      distinct_values: 2,
      values: [{ value: "indoor", count: 1, first_time: null, last_time: null }],
    });
  });

  test("custom.<name> counts a custom field; the counts follow later writes", async () => {
    const record = ok(await submitCounting("collections", { field: "custom.owner" }));
    expect(await valueCounts(record.query_id)).toMatchObject({ field: "custom.owner", matched: 2, without_value: 1, distinct_values: 1, values: [{ value: "ops", count: 1 }] });
    ok(await alice.client.post("/v1/collections/create", { name: "later", custom_fields: { owner: "ops" } }));
    expect((await valueCounts(record.query_id)).values).toEqual([{ value: "ops", count: 2, first_time: null, last_time: null }]);
  });

  test("bad value_counts are 400s naming the field", async () => {
    expectBadRequest(await submitCounting("topics", { field: "topic_name" }), "value_counts");
    expectBadRequest(await submitCounting("datasets", { field: "name", limit: 0 }), "value_counts.limit");
    expectBadRequest(await submitCounting("datasets", { field: "name", limit: 1001 }), "value_counts.limit");
    expectBadRequest(await submitCounting("datasets", { field: "nope" }), "value_counts.field");
    expectBadRequest(await submitCounting("datasets", { field: "topic.topic_name" }), "value_counts.field");
    expectBadRequest(await submitCounting("datasets", { field: "name", time_field: "name" }), "value_counts.time_field");
    expectBadRequest(await submitCounting("datasets", {}), "value_counts.field");
    const plain = ok(await alice.client.post("/v1/query/submit/structured", { query: {}, target: "datasets" }));
    expectBadRequest(await alice.client.get(`/v1/query/id/${plain.query_id}/value-counts`), "value_counts");
  });

  test("another org's caller gets a 404", async () => {
    const record = ok(await submitCounting("datasets", { field: "name" }));
    expect((await bob.client.get(`/v1/query/id/${record.query_id}/value-counts`)).status).toBe(404);
  });
});

describe("prompt_to_query", () => {
  test("the built-in provider translates a simple prompt into a query that runs", async () => {
    const translated = ok(await alice.client.post("/v1/query/prompt", { prompt: "datasets tagged outdoor with a /lidar topic where weather is rain" }));
    expect(translated).toEqual({ query: "tags CONTAINS 'outdoor' AND topic.topic_name = '/lidar' AND metadata.weather = 'rain'", target: "datasets" });
    expect(await find(alice.client, translated.target, translated.query, "dataset_id")).toEqual(sorted("d1"));
    expect(ok(await alice.client.post("/v1/query/prompt", { prompt: "files named a.csv" }))).toEqual({ query: "relative_path = 'a.csv'", target: "files" });
  });

  test("a prompt it cannot read is a 400 naming prompt", async () => {
    expectBadRequest(await alice.client.post("/v1/query/prompt", { prompt: "what is the meaning of life" }), "prompt");
  });
});

