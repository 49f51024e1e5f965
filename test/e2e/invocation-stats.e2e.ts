import { apiClient, createDataset, createTenant, expectBadRequest, startTestPlatform, type ApiClient, type TestPlatform, type TestTenant, LEGACY_TRIGGERS } from "@hangar/test-harness";
import { createAction, invocationPath, invoke, ISO, ok, setStatus, Status, unique, walk, type StatusName } from "./invocation-fixtures";

// Invocation lists and statistics through the gateway: bulk_invocation_operation (POST
// /v1/actions/invocations/cancel/all), summarize_runs_by_action (GET .../org-stats) and its list
// sibling (GET .../org-stats/list), query_invocations (POST .../query), queue_status (GET
// .../queue-status) and its legacy sibling, activity_buckets (POST .../query/activity) and
// group_invocations (POST .../query/grouped). Each test works in an org of its own, so counts are exact.

let t: TestPlatform;

beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t?.close());

/** A fresh org with a dataset and one action (`action`), and a way to invoke it. */
interface Org extends TestTenant {
  dataset: string;
  action: any;
  invoke(extra?: Record<string, unknown>, name?: string): Promise<any>;
}

async function newOrg(label: string): Promise<Org> {
  const tenant = await createTenant(t, unique(label));
  const dataset = await createDataset(tenant.client, "inputs");
  const action = await createAction(tenant.client);
  return { ...tenant, dataset, action, invoke: (extra = {}, name = action.name) => invoke(tenant.client, dataset, name, extra) };
}

/** Invokes `count` times, 25 requests at a time. */
async function invokeMany(org: Org, count: number): Promise<void> {
  for (let done = 0; done < count; done += 25) {
    await Promise.all(Array.from({ length: Math.min(25, count - done) }, () => org.invoke()));
  }
}

const stats = (client: ApiClient, query: string) => client.get(`/v1/actions/invocations/${query}`);
/**
 * `minutes` from one instant as ISO text. Tests that build a window take both ends from the same
 * `now`: two reads of the clock can straddle a millisecond and make a 2 h window 2 h + 1 ms.
 */
const minutesFrom = (now: number, minutes: number) => new Date(now + minutes * 60_000).toISOString();
/** A window of `minutes` either side of one reading of the clock. */
const windowAroundNow = (minutes: number) => {
  const now = Date.now();
  return { start: minutesFrom(now, -minutes), end: minutesFrom(now, minutes) };
};
const minutesFromNow = (minutes: number) => minutesFrom(Date.now(), minutes);
const statusesOf = (record: { status: { status: number }[] }) => record.status.map((s) => s.status);

describe("bulk_invocation_operation", () => {
  test("cancels every unfinished invocation of the org and leaves finished ones alone", async () => {
    const org = await newOrg("bulk");
    const waiting = [await org.invoke(), await org.invoke()];
    const running = await org.invoke();
    await walk(org.client, running.invocation_id, "Processing");
    const done = await org.invoke();
    await walk(org.client, done.invocation_id, "Completed");
    const res = ok(await org.client.post("/v1/actions/invocations/cancel/all", {}));
    expect(res).toEqual({ success_count: 3, failure_count: 0, has_more: false });
    for (const invocation of [...waiting, running]) {
      const record = ok(await org.client.get(invocationPath(invocation.invocation_id)));
      expect(record.last_status).toBe(997);
      expect(record.status.at(-1)).toEqual({ status: 997, detail: `cancelled by ${org.userId}`, timestamp: ISO });
    }
    expect(ok(await org.client.get(invocationPath(done.invocation_id))).last_status).toBe(5);
    expect(ok(await org.client.post("/v1/actions/invocations/cancel/all", { created_before: null }))).toEqual({ success_count: 0, failure_count: 0, has_more: false });
  });

  test("created_before limits the cancel to invocations created strictly before it", async () => {
    const org = await newOrg("bulk-before");
    const first = await org.invoke();
    const second = await org.invoke();
    const res = ok(await org.client.post("/v1/actions/invocations/cancel/all", { created_before: second.created }));
    expect(res).toEqual({ success_count: 1, failure_count: 0, has_more: false });
    expect(ok(await org.client.get(invocationPath(first.invocation_id))).last_status).toBe(997);
    expect(ok(await org.client.get(invocationPath(second.invocation_id))).last_status).toBe(0);
  });

  test("cancels at most 500 per call and says whether more remain", async () => {
    const org = await newOrg("bulk-batch");
    await invokeMany(org, 501);
    expect(ok(await org.client.post("/v1/actions/invocations/cancel/all", {}))).toEqual({ success_count: 500, failure_count: 0, has_more: true });
    expect(ok(await org.client.post("/v1/actions/invocations/cancel/all", {}))).toEqual({ success_count: 1, failure_count: 0, has_more: false });
  });

  test("a malformed created_before is a 400 naming it; another org's invocations are never touched", async () => {
    const org = await newOrg("bulk-bad");
    const other = await newOrg("bulk-other");
    const invocation = await org.invoke();
    expectBadRequest(await org.client.post("/v1/actions/invocations/cancel/all", { created_before: "yesterday" }), "created_before");
    expect(ok(await other.client.post("/v1/actions/invocations/cancel/all", {}))).toEqual({ success_count: 0, failure_count: 0, has_more: false });
    expect(ok(await org.client.get(invocationPath(invocation.invocation_id))).last_status).toBe(0);
  });
});

describe("summarize_runs_by_action and its list form", () => {
  let org: Org;
  let second: any;
  beforeAll(async () => {
    org = await newOrg("summary");
    second = await createAction(org.client, { name: `zz-${unique("second")}` });
    const outcomes: StatusName[][] = [["Completed"], ["Scheduled", "Completed"], ["Failed"], ["Deadly"], [], ["Processing"]];
    for (const path of outcomes) {
      const invocation = await org.invoke();
      if (path.length > 0) await walk(org.client, invocation.invocation_id, ...path);
    }
    await org.invoke({}, second.name);
  });

  test("counts, per action, invocations created in the window by outcome, ordered by action name", async () => {
    const window = windowAroundNow(10);
    const res = ok(await stats(org.client, `org-stats?start_time=${window.start}&end_time=${window.end}`));
    expect(res).toEqual({
      items: [
        { action_name: org.action.name, action_org_id: org.orgId, completed_count: 2, fail_count: 2, queued_count: 1 },
        { action_name: second.name, action_org_id: org.orgId, completed_count: 0, fail_count: 0, queued_count: 1 },
      ],
      next_token: null,
      total_count: 2,
    });
  });

  test("a window before the invocations is empty, and other orgs see none of them", async () => {
    expect(ok(await stats(org.client, "org-stats?start_time=2020-01-01T00:00:00Z&end_time=2020-01-02T00:00:00Z"))).toEqual({ items: [], next_token: null, total_count: 0 });
    const other = await newOrg("summary-other");
    const window = windowAroundNow(10);
    expect(ok(await stats(other.client, `org-stats?start_time=${window.start}&end_time=${window.end}`)).items).toEqual([]);
  });

  test("start_time and end_time are required ISO 8601 times, the end not before the start", async () => {
    expectBadRequest(await stats(org.client, `org-stats?end_time=${minutesFromNow(1)}`), "start_time");
    expectBadRequest(await stats(org.client, `org-stats?start_time=${minutesFromNow(-1)}`), "end_time");
    expectBadRequest(await stats(org.client, `org-stats?start_time=last-week&end_time=${minutesFromNow(1)}`), "start_time");
    expectBadRequest(await stats(org.client, `org-stats?start_time=${minutesFromNow(1)}&end_time=2024-02-30T00:00:00Z`), "end_time");
    const backwards = windowAroundNow(-1);
    expectBadRequest(await stats(org.client, `org-stats?start_time=${backwards.start}&end_time=${backwards.end}`), "end_time");
  });

  test("the list form defaults to the last 30 days, takes epoch seconds and a limit of 1 to 1000", async () => {
    const all = ok(await stats(org.client, "org-stats/list"));
    expect(all).toEqual([
      { action_name: org.action.name, action_org_id: org.orgId, completed_count: 2, fail_count: 2, queued_count: 1 },
      { action_name: second.name, action_org_id: org.orgId, completed_count: 0, fail_count: 0, queued_count: 1 },
    ]);
    expect(ok(await stats(org.client, "org-stats/list?limit=1"))).toEqual([all[0]]);
    const now = Math.floor(Date.now() / 1000);
    expect(ok(await stats(org.client, `org-stats/list?start_time=${now - 600}&end_time=${now + 600}`))).toEqual(all);
    expect(ok(await stats(org.client, "org-stats/list?start_time=0&end_time=86400"))).toEqual([]);
    expectBadRequest(await stats(org.client, "org-stats/list?limit=0"), "limit");
    expectBadRequest(await stats(org.client, "org-stats/list?limit=1001"), "limit");
    expectBadRequest(await stats(org.client, `org-stats/list?start_time=${now}&end_time=${now - 60}`), "end_time");
  });
});

describe("query_invocations", () => {
  let org: Org;
  let first: any;
  let completed: any;
  let triggered: any;
  let other: any;
  beforeAll(async () => {
    org = await newOrg("query");
    first = await org.invoke({ parameter_values: { threshold: "0.9" } });
    completed = await org.invoke();
    await walk(org.client, completed.invocation_id, "Completed");
    triggered = await org.invoke({ invocation_source: "Trigger", invocation_source_id: "tr_nightly", idempotency_id: "nightly-1" });
    const otherAction = await createAction(org.client);
    other = await org.invoke({}, otherAction.name);
  });
  const query = (body: unknown, client = org.client) => client.post("/v1/actions/invocations/query", body);
  const ids = (page: { items: { invocation_id: string }[] }) => page.items.map((i) => i.invocation_id);

  test("answers the org's invocations as full records, newest first, with the total", async () => {
    const page = ok(await query({}));
    expect(ids(page)).toEqual([other, triggered, completed, first].map((i) => i.invocation_id));
    expect(page.total_count).toBe(4);
    expect(page.next_token).toBeNull();
    const record = ok(await org.client.get(invocationPath(completed.invocation_id)));
    expect(page.items[2]).toEqual(record);
  });

  test.each<[string, unknown, () => any[]]>([
    ["provenance.action.name", { field: "provenance.action.name", comparator: "EQUALS", value: "__first__" }, () => [triggered, completed, first]],
    ["parameter_values", { field: "parameter_values.threshold", comparator: "EQUALS", value: "0.9" }, () => [first]],
    ["last_status", { field: "last_status", comparator: "EQUALS", value: 5 }, () => [completed]],
    ["provenance.source.source_type", { field: "provenance.source.source_type", comparator: "EQUALS", value: "Trigger" }, () => [triggered]],
    ["provenance.source.source_id", { field: "provenance.source.source_id", comparator: "EQUALS", value: "tr_nightly" }, () => [triggered]],
    ["idempotency_id", { field: "idempotency_id", comparator: "IS_NOT_NULL" }, () => [triggered]],
    ["data_source.data_source_id", { field: "data_source.data_source_id", comparator: "NOT_EQUALS", value: "__dataset__" }, () => []],
    ["timeout and data_source_type", { operator: "AND", conditions: [{ field: "timeout", comparator: "EQUALS", value: 30 }, { field: "data_source.data_source_type", comparator: "EQUALS", value: "Dataset" }] }, () => [other, triggered, completed, first]],
    ["created", { field: "created", comparator: "GREATER_THAN", value: "__triggered__" }, () => [other]],
  ])("filters on %s", async (_, condition, expected) => {
    const resolved = JSON.parse(
      JSON.stringify(condition).replace("__first__", org.action.name).replace("__dataset__", org.dataset).replace("__triggered__", triggered.created),
    );
    const page = ok(await query({ condition: resolved }));
    expect(ids(page)).toEqual(expected().map((i) => i.invocation_id));
    expect(page.total_count).toBe(expected().length);
  });

  test("pages with limit and after, and sorts as asked", async () => {
    const firstPage = ok(await query({ limit: 3, sort_by: "created", sort_direction: "ASC" }));
    expect(ids(firstPage)).toEqual([first, completed, triggered].map((i) => i.invocation_id));
    expect(firstPage.total_count).toBe(4);
    const secondPage = ok(await query({ limit: 3, sort_by: "created", sort_direction: "ASC", after: firstPage.next_token }));
    expect(ids(secondPage)).toEqual([other.invocation_id]);
    expect(secondPage.next_token).toBeNull();
  });

  test("refuses unknown fields and bad paging with a 400 naming them", async () => {
    expectBadRequest(await query({ condition: { field: "color", comparator: "EQUALS", value: "red" } }), "condition.field");
    expectBadRequest(await query({ sort_by: "color" }), "sort_by");
    expectBadRequest(await query({ limit: 0 }), "limit");
    expectBadRequest(await query({ after: "not-a-token!" }), "after");
  });

  test("another org sees none of them", async () => {
    const stranger = await newOrg("query-other");
    expect(ok(await query({}, stranger.client))).toEqual({ items: [], next_token: null, total_count: 0 });
    expect(ok(await query({}, stranger.client))).toEqual(ok(await stranger.client.post("/v1/actions/invocations/query", { condition: null })));
  });
});

describe("queue_status and its legacy sibling", () => {
  const zeros = { Queued: 0, Scheduled: 0, Downloading: 0, Processing: 0, Uploading: 0, Completed: 0, Cancelled: 0, Failed: 0, Deadly: 0 };

  test("an org without invocations: every status at 0, no median, no queued work", async () => {
    const org = await newOrg("queue-empty");
    expect(ok(await stats(org.client, "queue-status"))).toEqual({
      count_by_status: zeros,
      org_id: org.orgId,
      concurrency_limit: 4,
      median_duration_seconds: null,
      queued_work_seconds: 0,
    });
    expect(ok(await stats(org.client, "queue-status/legacy"))).toEqual({ count_by_status: zeros, org_id: org.orgId, limits: { concurrency_limit: 4 } });
  });

  test("counts by status name and estimates the queued work from the median run time of completed invocations", async () => {
    const org = await newOrg("queue");
    await org.invoke();
    await org.invoke();
    const processing = await org.invoke();
    await walk(org.client, processing.invocation_id, "Processing");
    const ran = await org.invoke();
    const ranRecord = await walk(org.client, ran.invocation_id, "Scheduled", "Processing", "Completed");
    const direct = await org.invoke();
    const directRecord = await walk(org.client, direct.invocation_id, "Completed");
    // Run time: from the first running status to completion, or from creation when it never ran.
    const ranSeconds = (Date.parse(ranRecord.status[3].timestamp) - Date.parse(ranRecord.status[1].timestamp)) / 1000;
    const directSeconds = (Date.parse(directRecord.status[1].timestamp) - Date.parse(directRecord.created)) / 1000;
    const median = (ranSeconds + directSeconds) / 2;

    const res = ok(await stats(org.client, "queue-status"));
    expect(res).toEqual({
      count_by_status: { ...zeros, Queued: 2, Processing: 1, Completed: 2 },
      org_id: org.orgId,
      concurrency_limit: 4,
      median_duration_seconds: expect.any(Number),
      queued_work_seconds: expect.any(Number),
    });
    expect(res.median_duration_seconds).toBeCloseTo(median, 6);
    expect(res.queued_work_seconds).toBeCloseTo(2 * median, 6);
    expect(ok(await stats(org.client, "queue-status/legacy"))).toEqual({
      count_by_status: { ...zeros, Queued: 2, Processing: 1, Completed: 2 },
      org_id: org.orgId,
      limits: { concurrency_limit: 4 },
    });
    const other = await newOrg("queue-other");
    expect(ok(await stats(other.client, "queue-status")).count_by_status).toEqual(zeros);
  });
});

describe("activity_buckets", () => {
  let org: Org;
  let a: any;
  let b: any;
  let start: string;
  let end: string;
  beforeAll(async () => {
    org = await newOrg("activity");
    ({ start, end } = windowAroundNow(60));
    const first = await org.invoke();
    const second = await org.invoke();
    await org.invoke();
    // a and b overlap in Processing; the third stays Queued.
    await walk(org.client, first.invocation_id, "Scheduled", "Processing");
    await walk(org.client, second.invocation_id, "Processing");
    a = await walk(org.client, first.invocation_id, "Completed");
    b = await walk(org.client, second.invocation_id, "Failed");
  });
  const activity = (body: Record<string, unknown>, client = org.client) => client.post("/v1/actions/invocations/query/activity", body);
  const at = (record: any, status: StatusName) => Date.parse(record.status.find((s: { status: number }) => s.status === Status[status]).timestamp);

  test("one bucket over the window: entries, peaks, concurrency and compute credit", async () => {
    const res = ok(await activity({ start_time: start, end_time: end, period: "1d" }));
    // Running time in ms x vCPU units (512 by default), scaled to millionths of a vCPU-second and rounded.
    const running = (at(a, "Completed") - at(a, "Scheduled")) * 512 + (at(b, "Failed") - at(b, "Processing")) * 512;
    expect(res).toEqual({
      period: "1d",
      start_time: start,
      end_time: end,
      buckets: [
        {
          period_start: start,
          peak_in_status: { Queued: 3, Scheduled: 1, Processing: 2 },
          peak_concurrency: 2,
          entered_status: { Queued: 3, Scheduled: 1, Processing: 2, Completed: 1, Failed: 1 },
          compute_credit_millionths: Math.floor((running * 125 + 64) / 128),
        },
      ],
    });
  });

  test("period defaults to 1h; buckets start every period from start_time and the entries add up", async () => {
    const res = ok(await activity({ start_time: start, end_time: end }));
    expect(res.period).toBe("1h");
    expect(res.buckets.map((bucket: { period_start: string }) => bucket.period_start)).toEqual([start, new Date(Date.parse(start) + 3_600_000).toISOString()]);
    const fine = ok(await activity({ start_time: start, end_time: end, period: "1m" }));
    expect(fine.buckets).toHaveLength(120);
    const entered: Record<string, number> = {};
    for (const bucket of fine.buckets) for (const [name, count] of Object.entries<number>(bucket.entered_status)) entered[name] = (entered[name] ?? 0) + count;
    expect(entered).toEqual({ Queued: 3, Scheduled: 1, Processing: 2, Completed: 1, Failed: 1 });
  });

  test("a condition restricts which invocations count; another org's activity is empty", async () => {
    const condition = { field: "last_status", comparator: "EQUALS", value: 998 };
    const res = ok(await activity({ start_time: start, end_time: end, period: "1d", condition }));
    expect(res.buckets[0]).toMatchObject({ peak_in_status: { Queued: 1, Processing: 1 }, peak_concurrency: 1, entered_status: { Queued: 1, Processing: 1, Failed: 1 } });
    const stranger = await newOrg("activity-other");
    expect(ok(await activity({ start_time: start, end_time: end, period: "1d" }, stranger.client)).buckets).toEqual([
      { period_start: start, peak_in_status: {}, peak_concurrency: 0, entered_status: {}, compute_credit_millionths: 0 },
    ]);
  });

  test("refuses missing or malformed times, unknown periods, too many buckets and unknown fields with a 400 naming them", async () => {
    expectBadRequest(await activity({ end_time: end }), "start_time");
    expectBadRequest(await activity({ start_time: start }), "end_time");
    expectBadRequest(await activity({ start_time: "soon", end_time: end }), "start_time");
    expectBadRequest(await activity({ start_time: end, end_time: start }), "end_time");
    expectBadRequest(await activity({ start_time: start, end_time: end, period: "2h" }), "period");
    expectBadRequest(await activity({ start_time: "2026-01-01T00:00:00Z", end_time: "2026-01-03T00:00:00Z", period: "1m" }), "period");
    expectBadRequest(await activity({ start_time: start, end_time: end, condition: { field: "color", comparator: "EQUALS", value: 1 } }), "condition.field");
  });
});

describe("group_invocations", () => {
  let org: Org;
  let second: any;
  let trigger: any;
  let colleague: { userId: string; client: ApiClient };
  beforeAll(async () => {
    org = await newOrg("group");
    second = await createAction(org.client);
    trigger = ok(await org.client.post("/v1/triggers", { name: unique("nightly"), action_name: second.name, required_inputs: ["**/*.bag"], for_each: "dataset", parameter_values: { threshold: "1" } }, LEGACY_TRIGGERS));
    colleague = await addMember(org.orgId);
    for (let i = 0; i < 3; i++) await org.invoke();
    await invoke(colleague.client, org.dataset, org.action.name);
    for (let i = 0; i < 2; i++) await org.invoke({ invocation_source: "Trigger", invocation_source_id: trigger.trigger_id }, second.name);
    const done = await org.invoke({}, second.name);
    await walk(org.client, done.invocation_id, "Completed");
  });
  const group = (body: Record<string, unknown>, client = org.client) => client.post("/v1/actions/invocations/query/grouped", body);
  const empty = { action_org_id: null, action_name: null, source_type: null, source_id: null, trigger_name: null, submitter: null };

  /** A user of `orgId` besides its first one, with a token. */
  async function addMember(orgId: string): Promise<{ userId: string; client: ApiClient }> {
    const userId = `${unique("colleague")}@example.com`;
    ok(await t.admin.post("/v1/users", { user_id: userId, org_id: orgId }));
    const token = ok(await t.admin.post("/v1/tokens", { name: "test", expiry_days: 1 }, { "X-Service-User-Id": userId }));
    return { userId, client: apiClient(t.url, token.secret) };
  }

  test("groups by action, largest first, with null for the dimensions not grouped by", async () => {
    expect(ok(await group({ statuses: [0], group_by: ["action"] }))).toEqual({
      groups: [
        { ...empty, action_org_id: org.orgId, action_name: org.action.name, count: 4 },
        { ...empty, action_org_id: org.orgId, action_name: second.name, count: 2 },
      ],
      total_count: 2,
    });
  });

  test("groups by source, naming the trigger of trigger sources", async () => {
    expect(ok(await group({ statuses: [0, 5], group_by: ["source"] }))).toEqual({
      groups: [
        { ...empty, source_type: "Manual", source_id: org.userId, count: 4 },
        { ...empty, source_type: "Trigger", source_id: trigger.trigger_id, trigger_name: trigger.name, count: 2 },
        { ...empty, source_type: "Manual", source_id: colleague.userId, count: 1 },
      ],
      total_count: 3,
    });
  });

  test("groups by submitter and by several dimensions at once", async () => {
    expect(ok(await group({ statuses: [0], group_by: ["submitter"] }))).toEqual({
      groups: [
        { ...empty, submitter: org.userId, count: 5 },
        { ...empty, submitter: colleague.userId, count: 1 },
      ],
      total_count: 2,
    });
    const both = ok(await group({ statuses: [0], group_by: ["action", "submitter"] }));
    expect(both.groups).toEqual([
      { ...empty, action_org_id: org.orgId, action_name: org.action.name, submitter: org.userId, count: 3 },
      { ...empty, action_org_id: org.orgId, action_name: second.name, submitter: org.userId, count: 2 },
      { ...empty, action_org_id: org.orgId, action_name: org.action.name, submitter: colleague.userId, count: 1 },
    ]);
  });

  test("statuses, limit and condition restrict the groups; total_count counts all groups", async () => {
    expect(ok(await group({ statuses: [5], group_by: ["action"] })).groups).toEqual([{ ...empty, action_org_id: org.orgId, action_name: second.name, count: 1 }]);
    expect(ok(await group({ statuses: [0], group_by: ["action"], limit: 1 }))).toEqual({
      groups: [{ ...empty, action_org_id: org.orgId, action_name: org.action.name, count: 4 }],
      total_count: 2,
    });
    const condition = { field: "provenance.source.source_type", comparator: "EQUALS", value: "Trigger" };
    expect(ok(await group({ statuses: [0], group_by: ["action"], condition })).groups).toEqual([{ ...empty, action_org_id: org.orgId, action_name: second.name, count: 2 }]);
  });

  test("refuses bad statuses, group_by and limit with a 400 naming them", async () => {
    expectBadRequest(await group({ statuses: [], group_by: ["action"] }), "statuses");
    expectBadRequest(await group({ statuses: [42], group_by: ["action"] }), "statuses[0]");
    expectBadRequest(await group({ statuses: [0], group_by: [] }), "group_by");
    expectBadRequest(await group({ statuses: [0], group_by: ["color"] }), "group_by[0]");
    expectBadRequest(await group({ statuses: [0], group_by: ["action"], limit: 101 }), "limit");
    expectBadRequest(await group({ statuses: [0], group_by: ["action"], limit: 0 }), "limit");
    expectBadRequest(await group({ statuses: [0], group_by: ["action"], condition: { field: "color", comparator: "EQUALS", value: 1 } }), "condition.field");
  });

  test("another org sees no groups", async () => {
    const stranger = await newOrg("group-other");
    expect(ok(await group({ statuses: [0, 5], group_by: ["action"] }, stranger.client))).toEqual({ groups: [], total_count: 0 });
  });
});

describe("status moves keep the statistics consistent", () => {
  test("a cancelled invocation leaves the queue and counts as Cancelled", async () => {
    const org = await newOrg("consistency");
    const invocation = await org.invoke();
    ok(await setStatus(org.client, invocation.invocation_id, "Cancelled"));
    expect(statusesOf(ok(await org.client.get(invocationPath(invocation.invocation_id))))).toEqual([0, 997]);
    expect(ok(await stats(org.client, "queue-status")).count_by_status).toMatchObject({ Queued: 0, Cancelled: 1 });
  });
});
