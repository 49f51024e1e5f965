import { mintInvocationToken } from "@hangar/shared";
import { apiClient, createDataset, createDevice, expectBadRequest, startWithTenants, uploadFiles, type ApiClient, type ApiResponse, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { createAction, invoke } from "./invocation-fixtures";
import { at, sessionSpanning } from "./metric-fixtures";

// Metrics (routes.md rows 196-204) through the gateway: definitions, publish_metrics with one
// outcome per entry (a refused entry does not stop the others), aggregate_metrics per UTC period
// (a value's time is its session's start or end), query_metric_values pages (max_results 1 to
// 10,000) with the device, session and invocation filters, and a session's metrics. Another org's
// caller sees nothing; a refused request writes nothing.

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const SECOND = 1_000_000_000;
const DAY = 86_400 * SECOND;

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let robotA: string;
let robotB: string;
let counter = 0;
const unique = (name: string) => `${name}-${++counter}`;
const session = (client: ApiClient, device: string, startNs: number, endNs: number) => sessionSpanning(client, device, startNs, endNs, unique);

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["metrics-alice", "metrics-bob"]);
  robotA = (await createDevice(alice.client, { device_id: unique("robot-a") })).device_id;
  robotB = (await createDevice(alice.client, { device_id: unique("robot-b") })).device_id;
});
afterAll(() => t?.close());

function ok(res: ApiResponse): any {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
}

const publish = (client: ApiClient, body: Record<string, unknown>) => client.post("/v1/metrics", body);
// Before API 2026-10-05 (SDK 0.53) publish_metrics answers {succeeded, failed}; from it on, the batch envelope.
const BEFORE_BATCHES = { "X-Roboto-Api-Version": "2026-10-02" };
const publishByOutcome = (client: ApiClient, body: Record<string, unknown>) => client.post("/v1/metrics", body, BEFORE_BATCHES);
/** The recorded values of a batch answer, in request order (null for a refused entry). */
const recordedOf = (res: ApiResponse) => ok(res).responses.map((r: any) => r.data);
const aggregate = (client: ApiClient, body: Record<string, unknown>) => client.post("/v1/metrics/aggregate", body);
const query = (client: ApiClient, body: Record<string, unknown>, pageToken?: string) =>
  client.post(`/v1/metrics/query${pageToken ? `?page_token=${encodeURIComponent(pageToken)}` : ""}`, body);

describe("metric definitions", () => {
  test("create, get, update, list and delete; names are unique per org", async () => {
    const name = unique("cpu.usage_max");
    const created = ok(await alice.client.post("/v1/metrics/definition/", { name, description: "peak CPU, percent" }));
    expect(created).toEqual({
      metric_id: expect.stringMatching(/^mt_/),
      org_id: alice.orgId,
      name,
      description: "peak CPU, percent",
      unit: null,
      created: ISO,
      created_by: alice.userId,
      modified: created.created,
      modified_by: alice.userId,
    });
    expect(ok(await alice.client.get(`/v1/metrics/definition/${name}`))).toEqual(created);
    const cleared = ok(await alice.client.put(`/v1/metrics/definition/${name}`, { description: null }));
    expect(cleared.description).toBeNull();
    expect(ok(await alice.client.put(`/v1/metrics/definition/${name}`, {})).description).toBeNull();
    expect(ok(await alice.client.put(`/v1/metrics/definition/${name}`, { description: "again" })).description).toBe("again");

    const clash = await alice.client.post("/v1/metrics/definition/", { name });
    expect(clash.status).toBe(409);
    // Bob's org may use the same name: names are unique per org.
    expect(ok(await bob.client.post("/v1/metrics/definition/", { name })).org_id).toBe(bob.orgId);

    const listed = ok(await alice.client.get("/v1/metrics/definitions/"));
    expect(listed.items.map((m: any) => m.name)).toContain(name);
    expect(listed.items.every((m: any) => m.org_id === alice.orgId)).toBe(true);

    expect(ok(await alice.client.delete(`/v1/metrics/definition/${name}`))).toBeNull();
    expect((await alice.client.get(`/v1/metrics/definition/${name}`)).status).toBe(404);
    expect(ok(await bob.client.get(`/v1/metrics/definition/${name}`)).org_id).toBe(bob.orgId);
  });

  test("the listing pages newest first with limit and next_token", async () => {
    const names = [unique("page.a"), unique("page.b"), unique("page.c")];
    for (const name of names) ok(await bob.client.post("/v1/metrics/definition/", { name }));
    const first = ok(await bob.client.get("/v1/metrics/definitions/?limit=2"));
    expect(first.items.map((m: any) => m.name)).toEqual([names[2], names[1]]);
    const second = ok(await bob.client.get(`/v1/metrics/definitions/?limit=2&page_token=${encodeURIComponent(first.next_token)}`));
    expect(second.items[0].name).toBe(names[0]);
    expect(second.total_count).toBe(first.total_count);
  });

  test("bad names are 400s naming the field; another org's definition is a 404 and unchanged", async () => {
    expectBadRequest(await alice.client.post("/v1/metrics/definition/", { name: "has space" }), "name");
    expectBadRequest(await alice.client.post("/v1/metrics/definition/", { name: "" }), "name");
    expectBadRequest(await alice.client.post("/v1/metrics/definition/", { name: "x".repeat(257) }), "name");
    expectBadRequest(await alice.client.post("/v1/metrics/definition/", { description: "no name" }), "name");
    const name = unique("private");
    ok(await alice.client.post("/v1/metrics/definition/", { name, description: "alice's" }));
    expect((await bob.client.get(`/v1/metrics/definition/${name}`)).status).toBe(404);
    expect((await bob.client.put(`/v1/metrics/definition/${name}`, { description: "bob's" })).status).toBe(404);
    expect((await bob.client.delete(`/v1/metrics/definition/${name}`)).status).toBe(404);
    expect(ok(await alice.client.get(`/v1/metrics/definition/${name}`)).description).toBe("alice's");
  });
});

describe("units (SDK 0.62)", () => {
  test("a definition's unit: set on create, changed or cleared on update, read by its values and aggregates", async () => {
    const name = unique("speed");
    expect(ok(await alice.client.post("/v1/metrics/definition/", { name, unit: "m/s" })).unit).toBe("m/s");
    expect(ok(await alice.client.get(`/v1/metrics/definition/${name}`)).unit).toBe("m/s");
    // The SDK's NotSet (`{}`) and an omitted unit keep it; null clears it.
    expect(ok(await alice.client.put(`/v1/metrics/definition/${name}`, { description: "top speed", unit: {} })).unit).toBe("m/s");
    expect(ok(await alice.client.put(`/v1/metrics/definition/${name}`, { unit: "km/h" })).unit).toBe("km/h");
    expect(ok(await alice.client.get("/v1/metrics/definitions/")).items.find((m: any) => m.name === name).unit).toBe("km/h");

    const sessionId = await session(alice.client, robotA, at("2026-06-01T10:00:00Z"), at("2026-06-01T11:00:00Z"));
    const published = await publish(alice.client, { session_id: sessionId, metrics: [{ name, value: 12.5 }, { name: unique("unitless"), value: 1 }] });
    expect(recordedOf(published).map((v: any) => v.unit)).toEqual(["km/h", null]);
    expect(ok(await query(alice.client, { name })).items.map((v: any) => v.unit)).toEqual(["km/h"]);
    expect(ok(await alice.client.get(`/v1/metrics/session/${sessionId}/`)).find((v: any) => v.name === name).unit).toBe("km/h");
    const window = { start_time_ns: at("2026-06-01T00:00:00Z"), end_time_ns: at("2026-06-02T00:00:00Z") };
    expect(ok(await aggregate(alice.client, { name, period: "daily", aggregation: "max", ...window })).records).toEqual([expect.objectContaining({ value: 12.5, unit: "km/h" })]);

    expect(ok(await alice.client.put(`/v1/metrics/definition/${name}`, { unit: null })).unit).toBeNull();
    expect(ok(await query(alice.client, { name })).items[0].unit).toBeNull();
    expect(ok(await aggregate(alice.client, { name, period: "daily", aggregation: "max", ...window })).records[0].unit).toBeNull();
  });

  test("a unit is at most 63 characters and a string: 400s naming it, nothing written; another org's is a 404", async () => {
    const name = unique("latency");
    expectBadRequest(await alice.client.post("/v1/metrics/definition/", { name, unit: "u".repeat(64) }), "unit");
    expect((await alice.client.get(`/v1/metrics/definition/${name}`)).status).toBe(404);
    expect(ok(await alice.client.post("/v1/metrics/definition/", { name, unit: "u".repeat(63) })).unit).toHaveLength(63);
    expectBadRequest(await alice.client.put(`/v1/metrics/definition/${name}`, { unit: "u".repeat(64) }), "unit");
    expectBadRequest(await alice.client.put(`/v1/metrics/definition/${name}`, { unit: 5 }), "unit");
    expect((await bob.client.put(`/v1/metrics/definition/${name}`, { unit: "s" })).status).toBe(404);
    expect(ok(await alice.client.get(`/v1/metrics/definition/${name}`)).unit).toBe("u".repeat(63));
  });
});

describe("publish_metrics", () => {
  test("answers every entry: good ones recorded, bad ones failed with the reason; a repeated name stores its last value", async () => {
    const sessionId = await session(alice.client, robotA, at("2026-01-05T10:00:00Z"), at("2026-01-05T11:00:00Z"));
    const [good, other] = [unique("run.duration_s"), unique("memory.peak_mb")];
    const body = {
      session_id: sessionId,
      metrics: [{ name: good, value: 42.5 }, { name: "bad name!", value: 1 }, { name: other, value: 2048 }, { name: unique("no.value") }, { name: good, value: 7 }, { name: good }],
    };
    const recorded = (name: string, value: number) => ({
      metric_id: expect.stringMatching(/^mt_/),
      org_id: alice.orgId,
      name,
      session_id: sessionId,
      min_timestamp_ns: at("2026-01-05T10:00:00Z"),
      max_timestamp_ns: at("2026-01-05T11:00:00Z"),
      value,
      unit: null, // the definitions publishing created have none
      device_id: robotA, // the session's only device
      invocation_id: null,
      published_by: alice.userId,
      published: ISO,
      group_key: null,
      session_start_time_ns: at("2026-01-05T10:00:00Z"),
      session_end_time_ns: at("2026-01-05T11:00:00Z"),
    });
    // The newest API answers the batch envelope only: one element per entry, in request order. The
    // name given three times stores its last accepted value (7), which each of its accepted entries reports.
    const batch = ok(await publish(alice.client, body));
    expect(Object.keys(batch)).toEqual(["responses"]);
    expect(batch.responses.map((r: any) => r.data)).toEqual([recorded(good, 7), null, recorded(other, 2048), null, recorded(good, 7), null]);
    expect(batch.responses.map((r: any) => r.error && [r.error.error.error_code, r.error.error.message])).toEqual([
      null,
      [400, expect.stringMatching(/^metrics\[1\]: name: may hold only/)],
      null,
      [400, "metrics[3]: value: is required"],
      null,
      [400, "metrics[5]: value: is required"],
    ]);
    // Before API 2026-10-05 the same publish answers {succeeded, failed}.
    const byOutcome = ok(await publishByOutcome(alice.client, body));
    expect(Object.keys(byOutcome).sort()).toEqual(["failed", "succeeded"]);
    expect(byOutcome.succeeded).toEqual([recorded(good, 7), recorded(other, 2048), recorded(good, 7)]);
    expect(byOutcome.failed).toEqual([
      { name: "bad name!", error: expect.stringMatching(/^name: may hold only/) },
      { name: expect.stringMatching(/^no\.value/), error: "value: is required" },
      { name: good, error: "value: is required" },
    ]);
    // Unknown names got definitions; the session lists exactly the recorded values, by name.
    expect(ok(await alice.client.get(`/v1/metrics/definition/${other}`)).name).toBe(other);
    const listed = ok(await alice.client.get(`/v1/metrics/session/${sessionId}/`));
    expect(listed).toEqual([recorded(other, 2048), recorded(good, 7)].sort((a, b) => (a.name < b.name ? -1 : 1)));
  });

  test("republishing a metric for a session replaces its value", async () => {
    const sessionId = await session(alice.client, robotA, at("2026-01-06T10:00:00Z"), at("2026-01-06T11:00:00Z"));
    const name = unique("replaced");
    ok(await publish(alice.client, { session_id: sessionId, metrics: [{ name, value: 1 }] }));
    ok(await publish(alice.client, { session_id: sessionId, device_id: null, metrics: [{ name, value: 2 }] }));
    expect(ok(await alice.client.get(`/v1/metrics/session/${sessionId}/`))).toEqual([expect.objectContaining({ name, value: 2, device_id: null })]);
  });

  test("the device: omitted infers the session's only one, null means none, an unknown one is a 404", async () => {
    const sessionId = await session(alice.client, robotB, at("2026-01-07T10:00:00Z"), at("2026-01-07T11:00:00Z"));
    const name = unique("device.rule");
    expect(recordedOf(await publish(alice.client, { session_id: sessionId, metrics: [{ name, value: 1 }] }))[0].device_id).toBe(robotB);
    // The SDK sends a field it leaves out (its NotSet) as {}: the same as omitted.
    expect(recordedOf(await publish(alice.client, { session_id: sessionId, device_id: {}, metrics: [{ name, value: 1 }] }))[0].device_id).toBe(robotB);
    expect(ok(await publishByOutcome(alice.client, { session_id: sessionId, device_id: robotA, metrics: [{ name, value: 1 }] })).succeeded[0].device_id).toBe(robotA);
    expect((await publish(alice.client, { session_id: sessionId, device_id: "no-such-robot", metrics: [{ name, value: 9 }] })).status).toBe(404);
    const bare = ok(await alice.client.post("/v1/sessions", { name: unique("bare") })).session_id;
    expectBadRequest(await publish(alice.client, { session_id: bare, metrics: [{ name, value: 9 }] }), "device_id");
    expect(ok(await alice.client.get(`/v1/metrics/session/${bare}/`))).toEqual([]);
    expect(ok(await alice.client.get(`/v1/metrics/session/${sessionId}/`))).toEqual([expect.objectContaining({ value: 1, device_id: robotA })]);
  });

  test("a refused request writes nothing: unknown or another org's session, no entries, bad types", async () => {
    const sessionId = await session(alice.client, robotA, at("2026-01-08T10:00:00Z"), at("2026-01-08T11:00:00Z"));
    const name = unique("refused");
    expect((await publish(bob.client, { session_id: sessionId, metrics: [{ name, value: 1 }] })).status).toBe(404);
    expect((await publish(alice.client, { session_id: "ss_nope", metrics: [{ name, value: 1 }] })).status).toBe(404);
    expectBadRequest(await publish(alice.client, { session_id: sessionId, metrics: [] }), "metrics");
    expectBadRequest(await publish(alice.client, { metrics: [{ name, value: 1 }] }), "session_id");
    expectBadRequest(await publish(alice.client, { session_id: sessionId, metrics: [{ name, value: true }] }), "metrics[0].value");
    expectBadRequest(await publish(alice.client, { session_id: sessionId, metrics: Array.from({ length: 1001 }, (_, i) => ({ name: `m${i}`, value: i })) }), "metrics");
    expect(ok(await alice.client.get(`/v1/metrics/session/${sessionId}/`))).toEqual([]);
    expect((await alice.client.get(`/v1/metrics/definition/${name}`)).status).toBe(404);
    expect((await bob.client.get(`/v1/metrics/session/${sessionId}/`)).status).toBe(404);
  });
});

test("a value's time follows its session's bounds when they change", async () => {
  const sessionId = await session(alice.client, robotA, at("2026-05-01T10:00:00Z"), at("2026-05-01T11:00:00Z"));
  const name = unique("follows");
  ok(await publish(alice.client, { session_id: sessionId, metrics: [{ name, value: 3 }] }));
  const datasetId = await createDataset(alice.client, unique("later"));
  await uploadFiles(alice.client, datasetId, { "later.mcap": "bytes" });
  const fileId = ok(await alice.client.get(`/v1/files/record/path/later.mcap/association/${datasetId}`)).file_id;
  ok(await alice.client.post(`/v1/sessions/id/${sessionId}/files`, { files: [{ file_id: fileId, anchor_ns: at("2026-05-03T00:00:00Z"), min_file_timestamp_ns: 0, max_file_timestamp_ns: 3600 * SECOND }] }));
  const [value] = ok(await alice.client.get(`/v1/metrics/session/${sessionId}/`));
  expect([value.min_timestamp_ns, value.max_timestamp_ns]).toEqual([at("2026-05-01T10:00:00Z"), at("2026-05-03T01:00:00Z")]);
  const res = ok(await aggregate(alice.client, { name, period: "daily", aggregation: "sum", start_time_ns: at("2026-05-01T00:00:00Z"), end_time_ns: at("2026-06-01T00:00:00Z") }));
  expect(res.records.map((r: any) => [r.start_time, r.total, r.value])).toEqual([[at("2026-05-03T00:00:00Z"), 1, 3]]);
});

describe("aggregate_metrics and query_metric_values", () => {
  const name = unique("distance.km");
  const sessions: Record<string, string> = {};
  // Four sessions: two end on either side of the midnight starting 2026-03-02 (a Monday), one later
  // that day, one in April. Values 10, 20, 30 and 5; robot A, B, A and no device.
  beforeAll(async () => {
    sessions.s1 = await session(alice.client, robotA, at("2026-02-28T23:00:00Z"), at("2026-03-01T23:59:59Z"));
    sessions.s2 = await session(alice.client, robotB, at("2026-03-01T22:00:00Z"), at("2026-03-02T00:00:00Z"));
    sessions.s3 = await session(alice.client, robotA, at("2026-03-02T11:00:00Z"), at("2026-03-02T12:00:00Z"));
    sessions.s4 = await session(alice.client, robotA, at("2026-04-15T08:00:00Z"), at("2026-04-15T09:00:00Z"));
    const values: [string, number, string | null][] = [["s1", 10, robotA], ["s2", 20, robotB], ["s3", 30, robotA], ["s4", 5, null]];
    for (const [key, value, device] of values) ok(await publish(alice.client, { session_id: sessions[key], device_id: device, metrics: [{ name, value }] }));
  });

  const window = { start_time_ns: at("2026-01-01T00:00:00Z"), end_time_ns: at("2027-01-01T00:00:00Z") };
  const buckets = async (body: Record<string, unknown>) =>
    ok(await aggregate(alice.client, { name, ...window, ...body })).records.map((r: any) => [new Date(r.start_time / 1e6).toISOString().slice(0, 10), new Date(r.end_time / 1e6).toISOString().slice(0, 10), r.total, r.value]);

  test("daily buckets split at the UTC midnight, with every documented field", async () => {
    const res = ok(await aggregate(alice.client, { name, period: "daily", aggregation: "sum", ...window }));
    const metricId = ok(await alice.client.get(`/v1/metrics/definition/${name}`)).metric_id;
    expect(res).toEqual({
      aggregation: "sum",
      total_groups: null, // ungrouped
      groups_truncated: false,
      records: [
        { metric_id: metricId, name, period: "daily", start_time: at("2026-03-01T00:00:00Z"), end_time: at("2026-03-01T00:00:00Z") + DAY, total: 1, value: 10, aggregation: "sum", unit: null, group_key: null },
        { metric_id: metricId, name, period: "daily", start_time: at("2026-03-02T00:00:00Z"), end_time: at("2026-03-03T00:00:00Z"), total: 2, value: 50, aggregation: "sum", unit: null, group_key: null },
        { metric_id: metricId, name, period: "daily", start_time: at("2026-04-15T00:00:00Z"), end_time: at("2026-04-16T00:00:00Z"), total: 1, value: 5, aggregation: "sum", unit: null, group_key: null },
      ],
    });
  });

  test.each([
    ["sum", [10, 50, 5]],
    ["mean", [10, 25, 5]],
    ["max", [10, 30, 5]],
    ["min", [10, 20, 5]],
    ["count", [1, 2, 1]],
  ])("aggregation %s per day", async (aggregation, expected) => {
    expect((await buckets({ period: "daily", aggregation })).map((b: any[]) => b[3])).toEqual(expected);
  });

  test("weekly (ISO weeks from Monday), monthly, quarterly and yearly buckets", async () => {
    expect(await buckets({ period: "weekly", aggregation: "sum" })).toEqual([
      ["2026-02-23", "2026-03-02", 1, 10],
      ["2026-03-02", "2026-03-09", 2, 50],
      ["2026-04-13", "2026-04-20", 1, 5],
    ]);
    // SDK 0.62's week_start: weeks from Sunday put the Sunday value with the next day's.
    expect(await buckets({ period: "weekly", aggregation: "sum", week_start: "monday" })).toEqual(await buckets({ period: "weekly", aggregation: "sum" }));
    expect(await buckets({ period: "weekly", aggregation: "sum", week_start: "sunday" })).toEqual([
      ["2026-03-01", "2026-03-08", 3, 60],
      ["2026-04-12", "2026-04-19", 1, 5],
    ]);
    expect(await buckets({ period: "weekly", aggregation: "count", week_start: "wednesday" })).toEqual([
      ["2026-02-25", "2026-03-04", 3, 3],
      ["2026-04-15", "2026-04-22", 1, 1],
    ]);
    // Other periods ignore it; a window inside one Sunday week widens to that week.
    expect(await buckets({ period: "monthly", aggregation: "sum", week_start: "sunday" })).toEqual(await buckets({ period: "monthly", aggregation: "sum" }));
    const sundayWeek = { start_time_ns: at("2026-03-03T00:00:00Z"), end_time_ns: at("2026-03-04T00:00:00Z") };
    expect(await buckets({ period: "weekly", aggregation: "sum", week_start: "sunday", ...sundayWeek })).toEqual([["2026-03-01", "2026-03-08", 3, 60]]);
    expect(await buckets({ period: "monthly", aggregation: "mean" })).toEqual([
      ["2026-03-01", "2026-04-01", 3, 20],
      ["2026-04-01", "2026-05-01", 1, 5],
    ]);
    expect(await buckets({ period: "quarterly", aggregation: "max" })).toEqual([
      ["2026-01-01", "2026-04-01", 3, 30],
      ["2026-04-01", "2026-07-01", 1, 5],
    ]);
    expect(await buckets({ period: "yearly", aggregation: "count" })).toEqual([["2026-01-01", "2027-01-01", 4, 4]]);
  });

  test("time_zone: periods run from midnight to midnight there, an hour shorter across the clock change", async () => {
    const zoned = async (period: string) =>
      ok(await aggregate(alice.client, { name, period, aggregation: "sum", time_zone: "America/Los_Angeles", ...window })).records.map((r: any) => [
        new Date(r.start_time / 1e6).toISOString(),
        new Date(r.end_time / 1e6).toISOString(),
        r.total,
        r.value,
      ]);
    // Los Angeles is UTC-8 until 2026-03-08, then UTC-7: the value ending 2026-03-02T00:00Z falls on March 1 there.
    expect(await zoned("daily")).toEqual([
      ["2026-03-01T08:00:00.000Z", "2026-03-02T08:00:00.000Z", 2, 30],
      ["2026-03-02T08:00:00.000Z", "2026-03-03T08:00:00.000Z", 1, 30],
      ["2026-04-15T07:00:00.000Z", "2026-04-16T07:00:00.000Z", 1, 5],
    ]);
    expect(await zoned("monthly")).toEqual([
      ["2026-03-01T08:00:00.000Z", "2026-04-01T07:00:00.000Z", 3, 60],
      ["2026-04-01T07:00:00.000Z", "2026-05-01T07:00:00.000Z", 1, 5],
    ]);
    // UTC named outright is the default; the zone's filters read the same values as UTC's.
    expect(await buckets({ period: "daily", aggregation: "sum", time_zone: "UTC" })).toEqual(await buckets({ period: "daily", aggregation: "sum" }));
    const filtered = ok(await aggregate(alice.client, { name, period: "yearly", aggregation: "count", time_zone: "Asia/Tokyo", include_device_ids: [robotA], ...window })).records;
    expect(filtered.map((r: any) => [new Date(r.start_time / 1e6).toISOString(), r.total, r.value])).toEqual([["2025-12-31T15:00:00.000Z", 2, 2]]);
  });

  test("time_filter start_time buckets by the sessions' starts; the window widens to whole periods", async () => {
    expect(await buckets({ period: "monthly", aggregation: "sum", time_filter: "start_time" })).toEqual([
      ["2026-02-01", "2026-03-01", 1, 10],
      ["2026-03-01", "2026-04-01", 2, 50],
      ["2026-04-01", "2026-05-01", 1, 5],
    ]);
    // A window from mid-March 2 to April 1 covers all of March for a monthly aggregate, none of it for a daily one.
    const narrow = { start_time_ns: at("2026-03-02T06:00:00Z"), end_time_ns: at("2026-04-01T00:00:00Z") };
    expect(await buckets({ period: "monthly", aggregation: "sum", ...narrow })).toEqual([["2026-03-01", "2026-04-01", 3, 60]]);
    expect(await buckets({ period: "daily", aggregation: "sum", ...narrow })).toEqual([["2026-03-02", "2026-03-03", 2, 50]]);
  });

  test("device, session and invocation filters; the daily partials and the values agree", async () => {
    const monthly = { period: "monthly", aggregation: "sum" };
    expect(await buckets({ ...monthly, include_device_ids: [robotA] })).toEqual([["2026-03-01", "2026-04-01", 2, 40]]);
    expect(await buckets({ ...monthly, include_device_ids: null })).toEqual([["2026-04-01", "2026-05-01", 1, 5]]);
    expect(await buckets({ ...monthly, include_session_ids: [sessions.s2, sessions.s4] })).toEqual([["2026-03-01", "2026-04-01", 1, 20], ["2026-04-01", "2026-05-01", 1, 5]]);
    // No value has an invocation: null keeps them all, a list none. These read the values, not the partials.
    expect(await buckets({ ...monthly, include_invocation_ids: null })).toEqual(await buckets(monthly));
    expect(await buckets({ ...monthly, include_invocation_ids: ["iv_x"] })).toEqual([]);
    for (const aggregation of ["sum", "mean", "max", "min", "count"]) {
      for (const period of ["daily", "weekly", "monthly", "quarterly", "yearly"]) {
        const viaValues = await buckets({ period, aggregation, include_session_ids: Object.values(sessions) });
        expect([period, aggregation, viaValues]).toEqual([period, aggregation, await buckets({ period, aggregation })]);
      }
    }
  });

  test("refusals name the field; an unknown or another org's metric is a 404", async () => {
    const base = { name, period: "daily", aggregation: "sum", ...window };
    expectBadRequest(await aggregate(alice.client, { ...base, period: "hourly" }), "period");
    expectBadRequest(await aggregate(alice.client, { ...base, aggregation: "median" }), "aggregation");
    expectBadRequest(await aggregate(alice.client, { ...base, time_filter: "middle" }), "time_filter");
    expectBadRequest(await aggregate(alice.client, { ...base, end_time_ns: window.start_time_ns }), "end_time_ns");
    expectBadRequest(await aggregate(alice.client, { ...base, start_time_ns: -1 }), "start_time_ns");
    const { end_time_ns: _omitted, ...noEnd } = base;
    expectBadRequest(await aggregate(alice.client, noEnd), "end_time_ns");
    expectBadRequest(await aggregate(alice.client, { ...base, include_session_ids: null }), "include_session_ids");
    expectBadRequest(await aggregate(alice.client, { ...base, include_device_ids: "robot" }), "include_device_ids");
    expectBadRequest(await aggregate(alice.client, { ...base, include_device_ids: Array.from({ length: 1001 }, (_, i) => `d${i}`) }), "include_device_ids");
    expect((await aggregate(alice.client, { ...base, name: "no.such.metric" })).status).toBe(404);
    expect((await aggregate(bob.client, base)).status).toBe(404);
  });

  test("SDK 0.62's fields at their defaults answer as when left out; a bad week_start or time_zone is a 400", async () => {
    const base = { name, period: "monthly", aggregation: "sum", ...window };
    // What SDK 0.62 sends when its caller leaves them alone.
    const defaults = { condition: null, group_by: null, time_zone: "UTC", week_start: "monday" };
    expect(await buckets({ period: "monthly", aggregation: "sum", ...defaults, widen_to_whole_periods: true })).toEqual(await buckets({ period: "monthly", aggregation: "sum" }));
    expectBadRequest(await aggregate(alice.client, { ...base, week_start: "sun" }), "week_start");
    // An offset is a zone to Node but one PostgreSQL reads with the opposite sign: refused, as an unknown name is.
    for (const timeZone of ["Mars/Olympus_Mons", "+01:00"]) expectBadRequest(await aggregate(alice.client, { ...base, time_zone: timeZone }), "time_zone");
    const queried = async (body: Record<string, unknown>) => ok(await query(alice.client, { name, ...body })).items.map((v: any) => v.value);
    expect(await queried({ names: null, sort_by: null, descending: false, condition: null, group_by: null })).toEqual(await queried({}));
  });

  test("query_metric_values pages by max_results, filters and windows; bounds of max_results", async () => {
    const all = ok(await query(alice.client, { name }));
    expect(all.items.map((v: any) => v.value)).toEqual([10, 20, 30, 5]);
    expect(all.next_token).toBeNull();
    const first = ok(await query(alice.client, { name, max_results: 3 }));
    expect(first.items.map((v: any) => v.value)).toEqual([10, 20, 30]);
    const second = ok(await query(alice.client, { name, max_results: 3 }, first.next_token));
    expect(second).toMatchObject({ items: [expect.objectContaining({ value: 5, session_id: sessions.s4 })], next_token: null });
    expect(ok(await query(alice.client, { name, max_results: 10_000 })).items).toHaveLength(4);
    expectBadRequest(await query(alice.client, { name, max_results: 0 }), "max_results");
    expectBadRequest(await query(alice.client, { name, max_results: 10_001 }), "max_results");
    // A token of another query is refused rather than misread.
    expectBadRequest(await query(alice.client, { name, max_results: 3, include_device_ids: [robotA] }, first.next_token), "page_token");

    const values = async (body: Record<string, unknown>) => ok(await query(alice.client, { name, ...body })).items.map((v: any) => v.value);
    expect(await values({ include_device_ids: [robotB] })).toEqual([20]);
    expect(await values({ include_device_ids: null })).toEqual([5]);
    expect(await values({ include_session_ids: [sessions.s1, sessions.s3] })).toEqual([10, 30]);
    expect(await values({ include_invocation_ids: null })).toEqual([10, 20, 30, 5]);
    expect(await values({ include_device_ids: {}, include_session_ids: {}, include_invocation_ids: {} })).toEqual([10, 20, 30, 5]);
    expect(await values({ include_invocation_ids: ["iv_x"] })).toEqual([]);
    // The window is [start, end) on the session's end (default) or start.
    expect(await values({ start_time_ns: at("2026-03-02T00:00:00Z"), end_time_ns: at("2026-04-01T00:00:00Z") })).toEqual([20, 30]);
    expect(await values({ time_filter: "start_time", start_time_ns: at("2026-03-01T00:00:00Z"), end_time_ns: at("2026-03-02T00:00:00Z") })).toEqual([20]);
    expect((await query(bob.client, { name })).status).toBe(404);
    expectBadRequest(await query(alice.client, {}), "name");
  });
});

describe("values published by an action's invocation", () => {
  const name = unique("detections");
  let invocationId: string;
  let asInvocation: ApiClient;
  const sessions: Record<string, string> = {};

  // A real invocation of Alice's, and the token the compute service hands its action (ROBOTO_API_KEY),
  // minted here with the platform's key as the runner lease mints it (runner-protocol.e2e.ts).
  beforeAll(async () => {
    const datasetId = await createDataset(alice.client, unique("invoked"));
    invocationId = (await invoke(alice.client, datasetId, (await createAction(alice.client)).name)).invocation_id;
    asInvocation = apiClient(t.url, mintInvocationToken({ orgId: alice.orgId, userId: alice.userId, invocationId, exp: Math.floor(Date.now() / 1000) + 600 }, t.internalAuthSecret));
    sessions.byAction = await session(alice.client, robotA, at("2026-05-01T10:00:00Z"), at("2026-05-01T11:00:00Z"));
    sessions.byUser = await session(alice.client, robotA, at("2026-05-02T10:00:00Z"), at("2026-05-02T11:00:00Z"));
  });

  const values = async (body: Record<string, unknown>) =>
    ok(await query(alice.client, { name, ...body })).items.map((v: any) => [v.session_id, v.value, v.invocation_id ?? null]);

  test("carry the invocation of the token; the invocation filters of queries and aggregates select them", async () => {
    const published = recordedOf(await publish(asInvocation, { session_id: sessions.byAction, metrics: [{ name, value: 7 }] }));
    expect(published).toEqual([expect.objectContaining({ session_id: sessions.byAction, value: 7, invocation_id: invocationId, published_by: alice.userId })]);
    ok(await publish(alice.client, { session_id: sessions.byUser, metrics: [{ name, value: 3 }] }));

    expect(await values({ include_invocation_ids: [invocationId] })).toEqual([[sessions.byAction, 7, invocationId]]);
    expect(await values({ include_invocation_ids: null })).toEqual([[sessions.byUser, 3, null]]);
    expect(await values({ include_invocation_ids: [invocationId, "iv_other"] })).toHaveLength(1);
    const daily = { name, period: "daily", aggregation: "sum", start_time_ns: at("2026-05-01T00:00:00Z"), end_time_ns: at("2026-06-01T00:00:00Z") };
    const totals = async (body: Record<string, unknown>) => ok(await aggregate(alice.client, { ...daily, ...body })).records.map((r: any) => [r.total, r.value]);
    expect(await totals({ include_invocation_ids: [invocationId] })).toEqual([[1, 7]]);
    expect(await totals({ include_invocation_ids: null })).toEqual([[1, 3]]);
    expect(await totals({})).toEqual([[1, 7], [1, 3]]);
    const sessionValues = ok(await alice.client.get(`/v1/metrics/session/${sessions.byAction}/`));
    expect(sessionValues).toEqual([expect.objectContaining({ name, invocation_id: invocationId })]);
    // Another org sees neither the metric nor the invocation's values.
    expect((await query(bob.client, { name, include_invocation_ids: [invocationId] })).status).toBe(404);
    expect((await aggregate(bob.client, { ...daily, include_invocation_ids: [invocationId] })).status).toBe(404);
  });

  test("a user's token cannot attribute values to an invocation: the id comes from the token, never the body", async () => {
    // The request has no invocation field: the gateway ignores unknown keys, as it does for every
    // client, so one sent anyway changes nothing, whether a user or an invocation sends it.
    const claimed = recordedOf(await publish(alice.client, { session_id: sessions.byUser, invocation_id: invocationId, metrics: [{ name, value: 4 }] }));
    expect(claimed[0].invocation_id).toBeNull();
    expect((await values({ include_invocation_ids: [invocationId] })).map((v: any[]) => v[0])).not.toContain(sessions.byUser);
    const redirected = ok(await publishByOutcome(asInvocation, { session_id: sessions.byAction, invocation_id: "iv_someone_else", metrics: [{ name, value: 8 }] }));
    expect(redirected.succeeded[0].invocation_id).toBe(invocationId);
    // The invocation's token acts in its org only: another org's session is a 404 and gets nothing.
    const bobSession = await session(bob.client, (await createDevice(bob.client, { device_id: unique("robot-b") })).device_id, at("2026-05-03T10:00:00Z"), at("2026-05-03T11:00:00Z"));
    expect((await publish(asInvocation, { session_id: bobSession, metrics: [{ name, value: 1 }] })).status).toBe(404);
    expect(ok(await bob.client.get(`/v1/metrics/session/${bobSession}/`))).toEqual([]);
  });
});
