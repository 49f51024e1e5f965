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
// invocation. Not covered: 0.62's group_by, condition, sort_by and names, which the platform does
// not implement (README "Metrics"), nor time_zone, tested through the gateway (metrics-api.e2e.ts).

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
