import { mintInvocationToken } from "@hangar/shared";
import { createDataset, createDevice, createTenant, startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { createAction, invoke, ok } from "./invocation-fixtures";
import { at, sessionSpanning } from "./metric-fixtures";
import { perRelease, sdkWorkspace, type SdkRelease, type SdkWorkspace } from "./sdk-fixtures";

// Metrics through the public Python client SDK, both releases (the pinned 0.53.0 and the newest
// 0.62.0), each in an org of its own, run as an action runs: with the invocation-scoped token the
// runner hands it (ROBOTO_API_KEY = hgi_…). A definition (0.62: with its unit), a publish with one
// refused entry (0.53 reads `succeeded`/`failed`, 0.62 the batch envelope, whose refused element it
// turns into an exception), the session's values, a query by the invocation and a daily aggregate.
// With 0.62 also weekly periods from Sunday (`week_start`). Every value read back carries the
// invocation. Then 0.62's reads alone: Metric.query with sort_by/descending, condition and group_by,
// Metric.aggregate with condition and group_by, and, through the SDK's own request and response
// models (its Metric methods take no argument for them), `names` and `widen_to_whole_periods`.
// time_zone is tested through the gateway (metrics-api.e2e.ts), as are the rules of the reads
// (metrics-reads.e2e.ts).

let t: TestPlatform;
let tenant: TestTenant;
let ws: SdkWorkspace;
let release: SdkRelease;
const workspaces: SdkWorkspace[] = [];
let counter = 0;
const unique = (name: string) => `${name}-${++counter}`;

beforeAll(async () => {
  [t] = await startWithTenants([]);
});
afterAll(async () => {
  await t?.close();
  await Promise.all(workspaces.map((w) => w.close()));
});

const flow = perRelease(
  async (which) => {
    const workspace = await sdkWorkspace(t, which);
    workspaces.push(workspace);
    return { tenant: await createTenant(t, `sdk-metrics-${which}`), workspace };
  },
  (context, which) => {
    ({ tenant, workspace: ws } = context);
    release = which;
  },
);

const METRICS = `
import json, sys
from roboto import RobotoClient
from roboto.domain.metrics import AggregationPeriod, Metric, MetricDefinition, MetricEntry, NumericAggregation

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()
name = args["name"]
unit = {"unit": "km"} if args["newest"] else {}
definition = MetricDefinition.create(name=name, description="distance driven", roboto_client=client, **unit)
published = Metric.publish(
    session_id=args["session_id"],
    metrics=[MetricEntry(name=name, value=12.5), MetricEntry(name="not a name", value=1.0)],
    roboto_client=client,
)
if args["newest"]:
    failed = [type(error).__name__ + ": " + str(error) for error in published.failed]
else:
    failed = [failure.name + ": " + failure.error for failure in published.failed]
value = lambda m: {"name": m.name, "value": m.value, "device_id": m.device_id, "invocation_id": m.invocation_id, "unit": getattr(m, "unit", None)}
buckets = Metric.aggregate(
    name=name, period=AggregationPeriod.Daily, aggregation=NumericAggregation.Sum,
    start_time=args["start_ns"], end_time=args["end_ns"], roboto_client=client,
)
weeks_from_sunday = None
if args["newest"]:
    from roboto.domain.metrics import DayOfWeek
    weeks_from_sunday = [b.start_time for b in Metric.aggregate(
        name=name, period=AggregationPeriod.Weekly, aggregation=NumericAggregation.Count,
        start_time=args["start_ns"], end_time=args["end_ns"], week_start=DayOfWeek.Sunday, roboto_client=client,
    )]
print(json.dumps({
    "definition": {"name": definition.name, "description": definition.description, "unit": getattr(definition, "unit", None)},
    "succeeded": [value(m) for m in published.succeeded],
    "failed": failed,
    "of_session": sorted([value(m) for m in Metric.get_by_session(args["session_id"], roboto_client=client)], key=lambda v: v["name"]),
    "of_invocation": [value(m) for m in Metric.query(name=name, include_invocation_ids=[args["invocation_id"]], roboto_client=client)],
    "of_no_invocation": [value(m) for m in Metric.query(name=name, include_invocation_ids=None, roboto_client=client)],
    "weeks_from_sunday": weeks_from_sunday,
    "buckets": [{"start_time": b.start_time, "total": b.total, "value": b.value, "unit": getattr(b, "unit", None)} for b in buckets],
}))
`;

flow("an action's metrics: define, publish with a refused entry, read by session, invocation and day", async () => {
  const device = (await createDevice(tenant.client, { device_id: unique(`robot-${release}`) })).device_id;
  const sessionId = await sessionSpanning(tenant.client, device, at("2026-07-01T08:00:00Z"), at("2026-07-01T09:00:00Z"), unique);
  const datasetId = await createDataset(tenant.client, unique("invoked"));
  const invocationId = (await invoke(tenant.client, datasetId, (await createAction(tenant.client)).name)).invocation_id;
  // The token the runner hands the action (runner-protocol.e2e.ts tests the lease that mints it).
  const token = mintInvocationToken({ orgId: tenant.orgId, userId: tenant.userId, invocationId, exp: Math.floor(Date.now() / 1000) + 600 }, t.internalAuthSecret);
  const name = unique("distance");
  const args = { newest: release === "newest", name, session_id: sessionId, invocation_id: invocationId, start_ns: at("2026-07-01T00:00:00Z"), end_ns: at("2026-07-02T00:00:00Z") };
  const out = await ws.sdk(`metrics-${release}`, METRICS, args, token);

  const unit = release === "newest" ? "km" : null;
  const recorded = { name, value: 12.5, device_id: device, invocation_id: invocationId, unit };
  expect(out.definition).toEqual({ name, description: "distance driven", unit });
  expect(out.succeeded).toEqual([recorded]);
  // 0.62 names an element's exception by its envelope's error_code. The spec's code is the HTTP status
  // (an integer, wire-notes.md "Errors"), which names no class, so the element reads as an unrecognized
  // error: still a refusal, in `failed`, with the platform's message (sdk-0.62-routes.md "Batch envelope").
  const refusal = release === "newest" ? /^RobotoUnrecognizedErrorException: metrics\[1\]: name: may hold only/ : /^not a name: name: may hold only/;
  expect(out.failed).toEqual([expect.stringMatching(refusal)]);
  expect(out.of_session).toEqual([recorded]);
  expect(out.of_invocation).toEqual([recorded]);
  expect(out.of_no_invocation).toEqual([]);
  expect(out.buckets).toEqual([{ start_time: at("2026-07-01T00:00:00Z"), total: 1, value: 12.5, unit }]);
  // 0.62's week_start: the week holding Wednesday 2026-07-01 starts on Sunday 2026-06-28.
  expect(out.weeks_from_sunday).toEqual(release === "newest" ? [at("2026-06-28T00:00:00Z")] : null);
  // Read back through the gateway with the tenant's own token: the refused entry wrote nothing.
  expect(ok(await tenant.client.get(`/v1/metrics/session/${sessionId}/`)).map((v: any) => [v.name, v.invocation_id])).toEqual([[name, invocationId]]);
});

const READS = `
import json, sys
from roboto import RobotoClient
from roboto.domain.metrics import (
    AggregateMetricsRequest, AggregationPeriod, Metric, MetricQueryPage, NumericAggregateMetricsResponse, NumericAggregation, QueryMetricsRequest,
)
from roboto.query import Comparator, Condition

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()
name, other = args["name"], args["other"]
window = {"start_time": args["start_ns"], "end_time": args["end_ns"]}
monthly = {"name": name, "period": AggregationPeriod.Monthly, "aggregation": NumericAggregation.Sum}
delivery = Condition(field="device.custom.fleet", comparator=Comparator.Equals, value="delivery")
by_device = list(Metric.query(name=name, group_by="device.device_id", sort_by="group_key", roboto_client=client))
names = client.post("v1/metrics/query", data=QueryMetricsRequest(names=[name, other], sort_by="value"), idempotent=True).to_record(MetricQueryPage)
clipped = client.post(
    "v1/metrics/aggregate",
    data=AggregateMetricsRequest(**monthly, start_time_ns=args["clip_start_ns"], end_time_ns=args["clip_end_ns"], widen_to_whole_periods=False),
    idempotent=True,
).to_record(NumericAggregateMetricsResponse)
print(json.dumps({
    "by_value_desc": [m.value for m in Metric.query(name=name, sort_by="value", descending=True, roboto_client=client)],
    "delivery": [m.value for m in Metric.query(name=name, condition=delivery, roboto_client=client)],
    "by_device": [[m.group_key, m.value] for m in by_device],
    "monthly_by_device": [[b.group_key, b.total, b.value, b.unit] for b in Metric.aggregate(**monthly, **window, group_by="device.device_id", roboto_client=client)],
    "monthly_delivery": [[b.group_key, b.total, b.value] for b in Metric.aggregate(**monthly, **window, condition=delivery, roboto_client=client)],
    "names": [[m.name, m.value] for m in names.items],
    "names_groups": [names.total_groups, names.groups_truncated],
    "clipped": [[b.start_time, b.end_time, b.total, b.value] for b in clipped.records],
    "clipped_groups": [clipped.total_groups, clipped.groups_truncated],
}))
`;

describe("roboto 0.62's metric reads", () => {
  let reader: TestTenant;
  let readerWs: SdkWorkspace;
  beforeAll(async () => {
    reader = await createTenant(t, "sdk-metric-reads");
    readerWs = await sdkWorkspace(t, "newest");
    workspaces.push(readerWs);
  });

  test("Metric.query and Metric.aggregate with sort_by, descending, condition and group_by; names and widen_to_whole_periods through the SDK's models", async () => {
    const robotA = (await createDevice(reader.client, { device_id: unique("robot-a"), custom_fields: { fleet: "delivery" } })).device_id;
    const robotB = (await createDevice(reader.client, { device_id: unique("robot-b"), custom_fields: { fleet: "survey" } })).device_id;
    const [name, other] = [unique("lap.s"), unique("laps")];
    // Three sessions in July 2026: robot A on the 1st and the 20th, robot B on the 2nd.
    const sessions: [string, string, number][] = [[robotA, "2026-07-01", 10], [robotB, "2026-07-02", 20], [robotA, "2026-07-20", 30]];
    for (const [device, day, value] of sessions) {
      const sessionId = await sessionSpanning(reader.client, device, at(`${day}T08:00:00Z`), at(`${day}T09:00:00Z`), unique);
      const metrics = value < 30 ? [{ name, value }, { name: other, value: value / 10 }] : [{ name, value }];
      ok(await reader.client.post("/v1/metrics", { session_id: sessionId, metrics }));
    }
    const args = {
      name,
      other,
      start_ns: at("2026-07-01T00:00:00Z"),
      end_ns: at("2026-08-01T00:00:00Z"),
      clip_start_ns: at("2026-07-02T00:00:00Z"),
      clip_end_ns: at("2026-07-21T00:00:00Z"),
    };
    const out = await readerWs.sdk("metric-reads", READS, args, reader.token);

    expect(out.by_value_desc).toEqual([30, 20, 10]);
    expect(out.delivery).toEqual([10, 30]);
    // Robot ids differ first in their letter, so they sort so in any collation.
    expect(out.by_device.map((v: any[]) => v[0])).toEqual([robotA, robotA, robotB]);
    expect(out.by_device.map((v: any[]) => v[1]).sort()).toEqual([10, 20, 30]);
    expect(out.monthly_by_device).toEqual([[robotA, 2, 40, null], [robotB, 1, 20, null]]);
    expect(out.monthly_delivery).toEqual([[null, 2, 40]]);
    expect(out.names).toEqual([[other, 1], [other, 2], [name, 10], [name, 20], [name, 30]]);
    expect(out.names_groups).toEqual([null, false]);
    // Only the values inside [July 2, July 21) count; the record keeps July's bounds.
    expect(out.clipped).toEqual([[at("2026-07-01T00:00:00Z"), at("2026-08-01T00:00:00Z"), 2, 50]]);
    expect(out.clipped_groups).toEqual([null, false]);
  });
});
