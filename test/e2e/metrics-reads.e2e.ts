import { createDataset, createDevice, expectBadRequest, startWithTenants, uploadFiles, type ApiClient, type ApiResponse, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { at } from "./metric-fixtures";

// SDK 0.62's metric reads through the gateway (sdk-0.62-routes.md rows 62-64): query_metric_values
// with `names`, `sort_by`/`descending`, `condition` (session, device and collection fields) and
// `group_by` (group_key on each value, at most 100 named groups: total_groups, groups_truncated);
// aggregate_metrics with `condition`, `group_by` and `widen_to_whole_periods`; the records'
// session times. Bad input is a 400 naming the field; another org's caller sees nothing.

const HOUR = 3_600_000_000_000;

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let counter = 0;
const unique = (name: string) => `${name}-${++counter}`;

function ok(res: ApiResponse): any {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

const aggregate = (client: ApiClient, body: Record<string, unknown>) => client.post("/v1/metrics/aggregate", body);
const query = (client: ApiClient, body: Record<string, unknown>, pageToken?: string) =>
  client.post(`/v1/metrics/query${pageToken ? `?page_token=${encodeURIComponent(pageToken)}` : ""}`, body);

/** A session of one hour ending at `end`, declared on `device` over one file of `datasetId`. */
interface Declared {
  name: string;
  end: string;
  custom_fields?: Record<string, unknown>;
  tags?: string[];
}

async function declareSessions(client: ApiClient, device: string, fileId: string, sessions: Declared[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < sessions.length; i += 100) {
    const body = sessions.slice(i, i + 100).map(({ end, ...rest }) => ({ ...rest, anchor_ns: at(end) - HOUR, files: [{ file_id: fileId, min_file_timestamp_ns: 0, max_file_timestamp_ns: HOUR }] }));
    const declared = ok(await client.post(`/v1/devices/id/${encodeURIComponent(device)}/sessions`, { sessions: body }));
    ids.push(...declared.responses.map((r: any) => r.data.session_id));
  }
  return ids;
}

async function oneFile(client: ApiClient): Promise<string> {
  const datasetId = await createDataset(client, unique("metric-reads"));
  const path = `${unique("log")}.mcap`;
  await uploadFiles(client, datasetId, { [path]: "bytes" });
  return ok(await client.get(`/v1/files/record/path/${encodeURIComponent(path)}/association/${datasetId}`)).file_id;
}

const publish = async (client: ApiClient, sessionId: string, deviceId: string | null, metrics: { name: string; value: number }[]) => {
  const res = ok(await client.post("/v1/metrics", { session_id: sessionId, device_id: deviceId, metrics }));
  expect(res.responses.every((r: any) => r.error === null)).toBe(true);
};

// Five sessions of Alice's: robot A (fleet "delivery") ends March 1 and March 15 (region emea),
// robot B (fleet "survey") March 2 (region amer, in a collection), robot C (no fleet) March 20
// (region true, a boolean), and one published without a device on April 10 (no region). Values
// 10, 30, 20, 7, 5; a second metric has values on the first two sessions.
const name = unique("cpu.max");
const other = unique("mem.peak");
const s: Record<string, string> = {};
const robots: Record<string, string> = {};
let collectionId: string;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["reads-alice", "reads-bob"]);
  robots.a = (await createDevice(alice.client, { device_id: unique("robot-a"), custom_fields: { fleet: "delivery" }, metadata: { site: "berlin" } })).device_id;
  robots.b = (await createDevice(alice.client, { device_id: unique("robot-b"), custom_fields: { fleet: "survey" } })).device_id;
  robots.c = (await createDevice(alice.client, { device_id: unique("robot-c") })).device_id;
  const fileId = await oneFile(alice.client);
  [s.a1, s.a2, s.none] = await declareSessions(alice.client, robots.a!, fileId, [
    { name: unique("a1"), end: "2026-03-01T12:00:00Z", custom_fields: { region: "emea" }, tags: ["production"] },
    { name: unique("a2"), end: "2026-03-15T12:00:00Z", custom_fields: { region: "emea" } },
    { name: unique("none"), end: "2026-04-10T12:00:00Z" },
  ]);
  [s.b1] = await declareSessions(alice.client, robots.b!, fileId, [{ name: unique("b1"), end: "2026-03-02T12:00:00Z", custom_fields: { region: "amer" } }]);
  [s.c1] = await declareSessions(alice.client, robots.c!, fileId, [{ name: unique("c1"), end: "2026-03-20T12:00:00Z", custom_fields: { region: true } }]);
  await publish(alice.client, s.a1!, robots.a!, [{ name, value: 10 }, { name: other, value: 100 }]);
  await publish(alice.client, s.b1!, robots.b!, [{ name, value: 20 }, { name: other, value: 200 }]);
  await publish(alice.client, s.a2!, robots.a!, [{ name, value: 30 }]);
  await publish(alice.client, s.c1!, robots.c!, [{ name, value: 7 }]);
  await publish(alice.client, s.none!, null, [{ name, value: 5 }]);
  collectionId = ok(await alice.client.post("/v1/collections/create", { name: unique("picked"), resources: [{ resource_type: "session", resource_id: s.b1 }] })).collection_id;
}, 180_000);
afterAll(() => t?.close());

const values = async (body: Record<string, unknown>, client = alice.client) => ok(await query(client, { name, ...body })).items.map((v: any) => v.value);
const YEAR = { start_time_ns: at("2026-01-01T00:00:00Z"), end_time_ns: at("2027-01-01T00:00:00Z") };
const records = async (body: Record<string, unknown>) =>
  ok(await aggregate(alice.client, { name, period: "monthly", aggregation: "sum", ...YEAR, ...body })).records.map((r: any) => [
    new Date(r.start_time / 1e6).toISOString().slice(0, 10),
    r.group_key,
    r.total,
    r.value,
  ]);

describe("query_metric_values: names and order", () => {
  test("names reads several metrics as one result; each value names its metric", async () => {
    const res = ok(await query(alice.client, { names: [name, other], sort_by: "value" }));
    expect(res.items.map((v: any) => [v.name, v.value])).toEqual([[name, 5], [name, 7], [name, 10], [name, 20], [name, 30], [other, 100], [other, 200]]);
    expect(res).toMatchObject({ total_groups: null, groups_truncated: false, next_token: null });
    // A list of one name reads as `name` does.
    expect(await values({ name: undefined, names: [name] })).toEqual(await values({}));
  });

  test("names: exactly one of name and names, distinct valid names, at most 100, all the caller's", async () => {
    expectBadRequest(await query(alice.client, { name, names: [other] }), "name");
    expectBadRequest(await query(alice.client, {}), "name");
    expectBadRequest(await query(alice.client, { names: [] }), "name");
    expectBadRequest(await query(alice.client, { names: [name, name] }), "names");
    expectBadRequest(await query(alice.client, { names: [name, "bad name"] }), "names[1]");
    expectBadRequest(await query(alice.client, { names: Array.from({ length: 101 }, (_, i) => `m${i}`) }), "names");
    expect((await query(alice.client, { names: [name, "no.such.metric"] })).status).toBe(404);
    expect((await query(bob.client, { names: [name, other] })).status).toBe(404);
  });

  test("sort_by and descending; ties go to the session; missing values last ascending, first descending", async () => {
    // The default is the session time (end_time here), oldest first.
    expect(await values({})).toEqual([10, 20, 30, 7, 5]);
    expect(await values({ descending: true })).toEqual([5, 7, 30, 20, 10]);
    expect(await values({ sort_by: "time", time_filter: "start_time" })).toEqual([10, 20, 30, 7, 5]);
    expect(await values({ sort_by: "value", descending: true })).toEqual([30, 20, 10, 7, 5]);
    expect(await values({ sort_by: "published" })).toEqual([10, 20, 30, 7, 5]);
    const deviceOrder = ok(await query(alice.client, { name, sort_by: "device_id" })).items.map((v: any) => v.device_id);
    expect(deviceOrder).toEqual([robots.a, robots.a, robots.b, robots.c, null]);
    const descending = ok(await query(alice.client, { name, sort_by: "device_id", descending: true })).items.map((v: any) => v.device_id);
    expect(descending).toEqual([null, robots.c, robots.b, robots.a, robots.a]);
    const bySession = ok(await query(alice.client, { name, sort_by: "session_id" })).items.map((v: any) => v.session_id);
    expect(bySession).toEqual([...bySession].sort());
    expect(await values({ sort_by: "invocation_id" })).toHaveLength(5);
    expectBadRequest(await query(alice.client, { name, sort_by: "colour" }), "sort_by");
    expectBadRequest(await query(alice.client, { name, sort_by: "group_key" }), "sort_by");
  });

  test("pages follow the order; a token of another order is refused", async () => {
    const body = { name, sort_by: "value", descending: true, max_results: 2 };
    const seen: number[] = [];
    let token: string | undefined;
    do {
      const page = ok(await query(alice.client, body, token));
      seen.push(...page.items.map((v: any) => v.value));
      token = page.next_token ?? undefined;
      if (token) expectBadRequest(await query(alice.client, { ...body, descending: false }, token), "page_token");
    } while (token);
    expect(seen).toEqual([30, 20, 10, 7, 5]);
  });
});

describe("condition", () => {
  const where = (field: string, comparator: string, value?: unknown) => ({ condition: { field, comparator, ...(value !== undefined ? { value } : {}) } });

  test("session, device and collection fields narrow the values", async () => {
    expect(await values(where("device.custom.fleet", "EQUALS", "delivery"))).toEqual([10, 30]);
    expect(await values(where("devices.device_id", "EQUALS", robots.b))).toEqual([20]);
    expect(await values(where("device.metadata.site", "EQUALS", "berlin"))).toEqual([10, 30]);
    expect(await values(where("session.tags", "CONTAINS", "production"))).toEqual([10]);
    expect(await values(where("session.custom.region", "EQUALS", "emea"))).toEqual([10, 30]);
    expect(await values(where("sessions.id", "EQUALS", s.c1))).toEqual([7]);
    expect(await values(where("session.end_time", "LESS_THAN", at("2026-03-10T00:00:00Z")))).toEqual([10, 20]);
    expect(await values(where("collection.collection_id", "EQUALS", collectionId))).toEqual([20]);
    // A negated collection condition: the session is in no collection that matches.
    expect(await values(where("collection.id", "NOT_EQUALS", collectionId))).toEqual([10, 30, 7, 5]);
    const either = { condition: { operator: "OR", conditions: [where("session.custom.region", "EQUALS", "amer").condition, where("device.device_id", "IS_NULL").condition] } };
    expect(await values(either)).toEqual([20, 5]);
  });

  test("a device condition: negated comparators need the field, only IS_NULL and NOT_EXISTS match a value without a device", async () => {
    // Robot C has no fleet and the last value no device: NOT_EQUALS matches neither.
    expect(await values(where("device.custom.fleet", "NOT_EQUALS", "delivery"))).toEqual([20]);
    expect(await values(where("device.device_id", "IS_NULL"))).toEqual([5]);
    expect(await values(where("device.custom.fleet", "NOT_EXISTS"))).toEqual([7, 5]);
  });

  test("bad conditions are 400s naming the part; another org's ids match nothing", async () => {
    expectBadRequest(await query(alice.client, { name, ...where("value", "EQUALS", 10) }), "condition.field");
    expectBadRequest(await query(alice.client, { name, ...where("metric.name", "EQUALS", "x") }), "condition.field");
    expectBadRequest(await query(alice.client, { name, ...where("session.name", "ROUGHLY", "x") }), "condition.comparator");
    expectBadRequest(await query(alice.client, { name, condition: { operator: "NOT", conditions: [where("session.name", "EQUALS", "x").condition] } }), "condition.operator");
    expectBadRequest(await query(alice.client, { name, condition: "session.name = x" }), "condition");
    expectBadRequest(await aggregate(alice.client, { name, period: "monthly", aggregation: "sum", ...YEAR, ...where("published", "EQUALS", 1) }), "condition.field");
    const bobCollection = ok(await bob.client.post("/v1/collections/create", { name: unique("bobs") })).collection_id;
    expect(await values(where("collection.collection_id", "EQUALS", bobCollection))).toEqual([]);
    expect((await query(bob.client, { name, ...where("session.id", "EQUALS", s.a1) })).status).toBe(404);
  });
});

describe("group_by", () => {
  test("a query carries each value's group key; the null group holds values without one", async () => {
    const byDevice = ok(await query(alice.client, { name, group_by: "device.device_id", sort_by: "group_key" }));
    expect(byDevice.items.map((v: any) => v.group_key)).toEqual([robots.a, robots.a, robots.b, robots.c, null]);
    expect(byDevice.items.map((v: any) => [v.value, v.group_key]).sort()).toEqual([[10, robots.a], [20, robots.b], [30, robots.a], [5, null], [7, robots.c]]);
    expect(byDevice).toMatchObject({ total_groups: 3, groups_truncated: false });
    const byRegion = ok(await query(alice.client, { name, group_by: "session.custom.region" }));
    expect(byRegion.items.map((v: any) => [v.value, v.group_key])).toEqual([[10, "emea"], [20, "amer"], [30, "emea"], [7, "true"], [5, null]]);
    expect(byRegion.total_groups).toBe(3);
    const byFleet = ok(await query(alice.client, { name, group_by: "devices.custom.fleet" }));
    expect(byFleet.items.map((v: any) => v.group_key)).toEqual(["delivery", "survey", "delivery", null, null]);
    // Ungrouped: no key.
    expect(ok(await query(alice.client, { name })).items.every((v: any) => v.group_key === null)).toBe(true);
  });

  test("only single-valued fields group; another org's caller sees nothing", async () => {
    for (const field of ["session.name", "device.tags", "value", "session.custom", "collection.id"]) {
      expectBadRequest(await query(alice.client, { name, group_by: field }), "group_by");
      expectBadRequest(await aggregate(alice.client, { name, period: "monthly", aggregation: "sum", ...YEAR, group_by: field }), "group_by");
    }
    expect((await query(bob.client, { name, group_by: "device.device_id" })).status).toBe(404);
    expect((await aggregate(bob.client, { name, period: "monthly", aggregation: "sum", ...YEAR, group_by: "device.device_id" })).status).toBe(404);
  });

  test("an aggregation splits each period by group, the null group last", async () => {
    const res = ok(await aggregate(alice.client, { name, period: "monthly", aggregation: "sum", ...YEAR, group_by: "device.device_id" }));
    // Robot ids differ first in their letter (robot-a-…, robot-b-…), so they sort so in any collation.
    expect(res.records.map((r: any) => [new Date(r.start_time / 1e6).toISOString().slice(0, 10), r.group_key, r.total, r.value])).toEqual([
      ["2026-03-01", robots.a, 2, 40],
      ["2026-03-01", robots.b, 1, 20],
      ["2026-03-01", robots.c, 1, 7],
      ["2026-04-01", null, 1, 5],
    ]);
    expect(res).toMatchObject({ total_groups: 3, groups_truncated: false });
    expect(res.records[0]).toMatchObject({ name, period: "monthly", aggregation: "sum", unit: null, end_time: at("2026-04-01T00:00:00Z") });
    expect(await records({ group_by: "session.custom.region", aggregation: "max" })).toEqual([
      ["2026-03-01", "amer", 1, 20],
      ["2026-03-01", "emea", 2, 30],
      ["2026-03-01", "true", 1, 7],
      ["2026-04-01", null, 1, 5],
    ]);
    // Ungrouped answers carry no groups.
    expect(ok(await aggregate(alice.client, { name, period: "monthly", aggregation: "sum", ...YEAR }))).toMatchObject({ total_groups: null, groups_truncated: false });
  });

  test("at most 100 named groups: those with the most values, ties by key; the null group stays; total_groups counts them all", async () => {
    const metric = unique("groups");
    const device = (await createDevice(alice.client, { device_id: unique("many") })).device_id;
    const fileId = await oneFile(alice.client);
    // 102 groups g000..g101 of one session each, g050 with two more, and a session without the field.
    const keys = Array.from({ length: 102 }, (_, i) => `g${String(i).padStart(3, "0")}`);
    const declared = [...keys, "g050", "g050", null].map((key) => ({ name: unique("grouped"), end: "2026-05-05T12:00:00Z", ...(key ? { custom_fields: { rank: key } } : {}) }));
    const ids = await declareSessions(alice.client, device, fileId, declared);
    for (const id of ids) await publish(alice.client, id, device, [{ name: metric, value: 1 }]);

    // g050 ranks first; of the 101 tied at one value the first 99 by key stay, so g100 and g101 go.
    const kept = keys.filter((k) => k !== "g100" && k !== "g101");
    const pages: any[] = [];
    let token: string | undefined;
    do {
      const page = ok(await query(alice.client, { name: metric, group_by: "session.custom.rank", sort_by: "group_key", max_results: 40 }, token));
      pages.push(page);
      token = page.next_token ?? undefined;
    } while (token);
    expect(pages.every((p) => p.total_groups === 102 && p.groups_truncated === true)).toBe(true);
    const queried = pages.flatMap((p) => p.items.map((v: any) => v.group_key));
    expect(queried).toEqual([...kept.flatMap((k) => (k === "g050" ? [k, k, k] : [k])), null]);

    const res = ok(await aggregate(alice.client, { name: metric, period: "yearly", aggregation: "count", ...YEAR, group_by: "session.custom.rank" }));
    expect(res).toMatchObject({ total_groups: 102, groups_truncated: true });
    expect(res.records.map((r: any) => [r.group_key, r.total])).toEqual([...kept.map((k) => [k, k === "g050" ? 3 : 1]), [null, 1]]);
    // Narrowed to fewer groups, nothing is dropped.
    const narrowed = ok(await aggregate(alice.client, { name: metric, period: "yearly", aggregation: "count", ...YEAR, group_by: "session.custom.rank", condition: { field: "session.custom.rank", comparator: "BEGINS_WITH", value: "g10" } }));
    expect(narrowed).toMatchObject({ total_groups: 2, groups_truncated: false });
    expect(narrowed.records.map((r: any) => r.group_key)).toEqual(["g100", "g101"]);
  });
});

test("grouped by device, the daily partials rank the groups by their values in the requested window, as the values do", async () => {
  const metric = unique("per.device");
  const prefix = unique("fleet");
  const fileId = await oneFile(alice.client);
  // 101 devices, one value each in June 2026. d000's value is in June but before the window's
  // first instant, so it has none in the window: it is the one dropped (counting whole periods
  // would tie it with the others and keep it, as first by key, dropping d100 instead).
  for (let i = 0; i <= 100; i++) {
    const device = (await createDevice(alice.client, { device_id: `${prefix}-d${String(i).padStart(3, "0")}` })).device_id;
    const [id] = await declareSessions(alice.client, device, fileId, [{ name: unique("run"), end: i === 0 ? "2026-06-01T06:00:00Z" : "2026-06-10T12:00:00Z" }]);
    await publish(alice.client, id!, device, [{ name: metric, value: i }]);
  }
  const body = { name: metric, period: "monthly", aggregation: "sum", group_by: "device.device_id", start_time_ns: at("2026-06-01T12:00:00Z"), end_time_ns: at("2026-06-20T12:00:00Z") };
  const viaPartials = ok(await aggregate(alice.client, body));
  // An invocation filter (every value has none) makes the statement read the values instead.
  const viaValues = ok(await aggregate(alice.client, { ...body, include_invocation_ids: null }));
  expect(viaPartials).toMatchObject({ total_groups: 101, groups_truncated: true });
  expect(viaPartials.records.map((r: any) => r.group_key)).toEqual(Array.from({ length: 100 }, (_, i) => `${prefix}-d${String(i + 1).padStart(3, "0")}`));
  expect(viaValues).toEqual(viaPartials);
  // A window of whole days holding d000's value too (the partials alone serve it): all tie, and the
  // first 100 by key stay, d000 among them.
  const whole = ok(await aggregate(alice.client, { ...body, start_time_ns: at("2026-06-01T00:00:00Z"), end_time_ns: at("2026-06-21T00:00:00Z"), widen_to_whole_periods: false }));
  expect(whole).toMatchObject({ total_groups: 101, groups_truncated: true });
  expect(whole.records.map((r: any) => r.group_key)).toEqual(Array.from({ length: 100 }, (_, i) => `${prefix}-d${String(i).padStart(3, "0")}`));
}, 120_000);

describe("aggregate_metrics: condition and widen_to_whole_periods", () => {
  test("a condition narrows what each period aggregates; a period left empty is left out", async () => {
    expect(await records({ condition: { field: "device.custom.fleet", comparator: "EQUALS", value: "delivery" } })).toEqual([["2026-03-01", null, 2, 40]]);
    expect(await records({ condition: { field: "session.custom.region", comparator: "IS_NULL" } })).toEqual([["2026-04-01", null, 1, 5]]);
    expect(await records({ condition: null })).toEqual(await records({}));
  });

  test("widen_to_whole_periods false takes only the window's values; the records keep whole-period bounds", async () => {
    const window = { start_time_ns: at("2026-03-02T00:00:00Z"), end_time_ns: at("2026-03-16T00:00:00Z") };
    expect(await records({ ...window })).toEqual([["2026-03-01", null, 4, 67]]);
    expect(await records({ ...window, widen_to_whole_periods: true })).toEqual([["2026-03-01", null, 4, 67]]);
    const clipped = ok(await aggregate(alice.client, { name, period: "monthly", aggregation: "sum", ...window, widen_to_whole_periods: false })).records;
    expect(clipped.map((r: any) => [r.start_time, r.end_time, r.total, r.value])).toEqual([[at("2026-03-01T00:00:00Z"), at("2026-04-01T00:00:00Z"), 2, 50]]);
    // Midnight bounds read the daily partials, other bounds the values, a filter the values too: one answer.
    const offMidnight = { start_time_ns: at("2026-03-01T13:00:00Z"), end_time_ns: at("2026-03-15T13:00:00Z") };
    expect(await records({ ...offMidnight, widen_to_whole_periods: false })).toEqual([["2026-03-01", null, 2, 50]]);
    expect(await records({ ...window, widen_to_whole_periods: false, include_invocation_ids: null })).toEqual([["2026-03-01", null, 2, 50]]);
    // The same values a query with that window returns.
    expect(await values({ ...window })).toEqual([20, 30]);
    expectBadRequest(await aggregate(alice.client, { name, period: "monthly", aggregation: "sum", ...window, widen_to_whole_periods: "no" }), "widen_to_whole_periods");
  });
});

test("list_session_metrics and query records carry the session times and unit", async () => {
  const [listed] = ok(await alice.client.get(`/v1/metrics/session/${s.c1}/`));
  expect(listed).toMatchObject({
    name,
    value: 7,
    unit: null,
    group_key: null,
    min_timestamp_ns: at("2026-03-20T11:00:00Z"),
    max_timestamp_ns: at("2026-03-20T12:00:00Z"),
    session_start_time_ns: at("2026-03-20T11:00:00Z"),
    session_end_time_ns: at("2026-03-20T12:00:00Z"),
  });
  const [queried] = ok(await query(alice.client, { name, include_session_ids: [s.c1] })).items;
  expect(queried).toEqual(listed);
  expect((await bob.client.get(`/v1/metrics/session/${s.c1}/`)).status).toBe(404);
});
