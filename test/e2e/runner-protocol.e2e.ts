import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { mintInvocationToken, signedClient, type Principal } from "@hangar/shared";
import { ComputeService, type RunnerLease } from "@hangar/shared/proto/compute";
import { apiClient, createDataset, createTenant, expectError, startTestPlatform, waitFor, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { backdateStart, invocationPath, ok, Status } from "./invocation-fixtures";

// The runner protocol of the compute service, driven over gRPC as a runner does (ClaimInvocation,
// RenewLease, AppendLogs, ReportStatus), with the results read back through the gateway. Leases
// are short here so that the sweeper's work (lapsed leases, timeouts, silent invocations) shows
// within a test. Each test claims only in its own org, so tests never take each other's work.

const LEASE_MS = 3000;
const HEARTBEAT_TIMEOUT_MS = 3000;

let t: TestPlatform;
let runner: Client<typeof ComputeService>;

beforeAll(async () => {
  t = await startTestPlatform({ compute: { leases: { leaseMs: LEASE_MS, heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS, sweepIntervalMs: 200 } } });
  runner = computeAs({ kind: "service", subject: "runner:test", memberships: [], isSystemAdmin: false });
});
afterAll(() => t?.close());

function computeAs(principal: Principal): Client<typeof ComputeService> {
  return signedClient({ service: ComputeService, baseUrl: t.platform.services.compute.url, principal, internalAuthSecret: t.internalAuthSecret });
}

let counter = 0;

/** A fresh org with an action that has a command, and a dataset to run it on. */
async function tenantWithAction(extra: Record<string, unknown> = {}): Promise<{ tenant: TestTenant; action: string; datasetId: string }> {
  const tenant = await createTenant(t, `runner-${++counter}`);
  const action = `act-${counter}`;
  ok(await tenant.client.post("/v1/actions", { name: action, container_parameters: { command: ["true"] }, ...extra }));
  return { tenant, action, datasetId: await createDataset(tenant.client, "runs") };
}

async function invoke(tenant: TestTenant, action: string, datasetId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const body = { data_source_id: datasetId, data_source_type: "Dataset", input_data: ["**/*"], invocation_source: "Manual", ...extra };
  return ok(await tenant.client.post(`/v1/actions/${action}/invoke`, body)).invocation_id;
}

async function claim(tenant: TestTenant, runnerId = "r1", executors = ["process"]): Promise<RunnerLease | undefined> {
  return (await runner.claimInvocation({ runnerId, executors, orgId: tenant.orgId })).lease;
}

async function invocation(tenant: TestTenant, id: string): Promise<any> {
  return ok(await tenant.client.get(invocationPath(id)));
}

/** The invocation's status history as `[status, detail]` pairs. */
async function history(tenant: TestTenant, id: string): Promise<[number, string | null][]> {
  return (await invocation(tenant, id)).status.map((s: { status: number; detail: string | null }) => [s.status, s.detail]);
}

async function rejection(call: Promise<unknown>): Promise<ConnectError> {
  const error = await call.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

test("a claim takes the org's oldest queued invocation: Scheduled under a lease, with the action and an API key", async () => {
  const { tenant, action, datasetId } = await tenantWithAction({ parameters: [{ name: "mode", default: "fast" }], requires_downloaded_inputs: false });
  const first = await invoke(tenant, action, datasetId);
  await invoke(tenant, action, datasetId);
  const before = Date.now();

  const lease = (await claim(tenant))!;

  expect(lease.leaseId).toMatch(/^ls_[0-9a-z]{20}$/);
  expect(lease.invocation).toMatchObject({ invocationId: first, orgId: tenant.orgId, lastStatus: Status.Scheduled, parameterValues: { mode: "fast" } });
  expect(lease.action).toMatchObject({ name: action, orgId: tenant.orgId, requiresDownloadedInputs: false, digest: expect.stringMatching(/^[0-9a-f]{32}$/) });
  expect(lease.action!.containerParameters!.command).toEqual(["true"]);
  expect(lease.apiKey).toMatch(/^hgi_/);
  expect(lease.renewIntervalMs).toBe(BigInt(LEASE_MS / 3));
  expect(timestampDate(lease.leaseExpires!).getTime()).toBeGreaterThanOrEqual(before + LEASE_MS - 1000);
  const record = await invocation(tenant, first);
  expect(record.last_status).toBe(Status.Scheduled);
  expect(record.status.map((s: { status: number; detail: string | null }) => [s.status, s.detail])).toEqual([
    [Status.Queued, null],
    [Status.Scheduled, "claimed by runner r1"],
  ]);
});

test("an empty queue answers no lease", async () => {
  const { tenant } = await tenantWithAction();
  const response = await runner.claimInvocation({ runnerId: "r1", executors: ["process"], orgId: tenant.orgId });
  expect(response.lease).toBeUndefined();
});

test("a container runner claims only actions with an image; a process runner also takes one with neither image nor command", async () => {
  const { tenant, datasetId } = await tenantWithAction();
  ok(await tenant.client.post("/v1/actions", { name: "bare" }));
  ok(await tenant.client.post("/v1/actions", { name: "imaged", uri: "registry.example.com/detector:1" }));
  const bare = await invoke(tenant, "bare", datasetId);
  const imaged = await invoke(tenant, "imaged", datasetId);

  expect((await claim(tenant, "c1", ["container"]))?.invocation?.invocationId).toBe(imaged);
  expect(await claim(tenant, "c1", ["container"])).toBeUndefined();
  expect((await claim(tenant, "p1", ["process"]))?.invocation?.invocationId).toBe(bare);
});

test("claims refuse a missing runner id and unknown executors", async () => {
  expect(await rejection(runner.claimInvocation({ runnerId: " ", executors: ["process"] }))).toMatchObject({ code: Code.InvalidArgument, rawMessage: "runner_id: is required" });
  expect(await rejection(runner.claimInvocation({ runnerId: "r1", executors: [] }))).toMatchObject({
    code: Code.InvalidArgument,
    rawMessage: "executors: must name at least one of process, container",
  });
  expect(await rejection(runner.claimInvocation({ runnerId: "r1", executors: ["process", "vm"] }))).toMatchObject({
    code: Code.InvalidArgument,
    rawMessage: "executors[1]: must be one of process, container, got 'vm'",
  });
});

test("a user's principal is refused, even signed with the internal key", async () => {
  const { tenant } = await tenantWithAction();
  const asUser = computeAs({ kind: "user", subject: tenant.userId, orgId: tenant.orgId, memberships: [{ orgId: tenant.orgId, roles: ["owner"] }], isSystemAdmin: false });
  const message = "the runner protocol is for platform runners: call it with a service principal signed with the internal key";
  expect(await rejection(asUser.claimInvocation({ runnerId: "r1", executors: ["process"] }))).toMatchObject({ code: Code.Unauthenticated, rawMessage: message });
  expect(await rejection(asUser.renewLease({ leaseId: "ls_x" }))).toMatchObject({ code: Code.Unauthenticated, rawMessage: message });
  expect(await rejection(asUser.appendLogs({ leaseId: "ls_x", entries: [] }))).toMatchObject({ code: Code.Unauthenticated, rawMessage: message });
  expect(await rejection(asUser.reportStatus({ leaseId: "ls_x", status: 3, detail: "" }))).toMatchObject({ code: Code.Unauthenticated, rawMessage: message });
});

test("renewing extends the lease and records the heartbeat; an unknown lease is lost", async () => {
  const { tenant, action, datasetId } = await tenantWithAction();
  const id = await invoke(tenant, action, datasetId);
  const lease = (await claim(tenant))!;

  const renewed = await runner.renewLease({ leaseId: lease.leaseId, invocationId: id });

  expect(renewed.cancelRequested).toBe(false);
  expect(timestampDate(renewed.leaseExpires!).getTime()).toBeGreaterThanOrEqual(timestampDate(lease.leaseExpires!).getTime());
  expect((await invocation(tenant, id)).last_heartbeat).toEqual(expect.stringMatching(/^\d{4}-/));
  expect(await rejection(runner.renewLease({ leaseId: "ls_unknown" }))).toMatchObject({ code: Code.FailedPrecondition, rawMessage: expect.stringMatching(/^lease lost/) });
  expect(await rejection(runner.renewLease({ leaseId: "" }))).toMatchObject({ code: Code.InvalidArgument, rawMessage: "lease_id: is required" });
});

test("log lines appended under a lease are the invocation's logs, in order", async () => {
  const { tenant, action, datasetId } = await tenantWithAction();
  const id = await invoke(tenant, action, datasetId);
  const lease = (await claim(tenant))!;
  const at = new Date("2026-01-02T03:04:05.678Z");

  await runner.appendLogs({
    leaseId: lease.leaseId,
    entries: [
      { process: "setup", log: "downloading", timestamp: timestampFromDate(at) },
      { process: "action", log: "hello", timestamp: timestampFromDate(at) },
      { process: "action", log: "world", timestamp: timestampFromDate(at) },
    ],
  });

  const logs = ok(await tenant.client.get(invocationPath(id, "/logs")));
  expect(logs.items.map((l: { process: string; log: string; timestamp: string }) => [l.process, l.log, l.timestamp])).toEqual([
    ["setup", "downloading", at.toISOString()],
    ["action", "hello", at.toISOString()],
    ["action", "world", at.toISOString()],
  ]);
  expect(await rejection(runner.appendLogs({ leaseId: lease.leaseId, entries: [{ process: "kernel", log: "x" }] }))).toMatchObject({
    code: Code.InvalidArgument,
    rawMessage: "entries[0].process: must be one of setup, action, output_handler, monitor, got 'kernel'",
  });
  expect(await rejection(runner.appendLogs({ leaseId: "ls_unknown", entries: [{ process: "action", log: "x" }] }))).toMatchObject({ code: Code.FailedPrecondition });
});

test("reports move the invocation forward; a backward move is refused naming both statuses; a final status ends the lease", async () => {
  const { tenant, action, datasetId } = await tenantWithAction();
  const id = await invoke(tenant, action, datasetId);
  const lease = (await claim(tenant))!;

  const downloading = await runner.reportStatus({ leaseId: lease.leaseId, status: Status.Downloading, detail: "" });
  expect(downloading.invocation).toMatchObject({ invocationId: id, lastStatus: Status.Downloading });
  await runner.reportStatus({ leaseId: lease.leaseId, status: Status.Processing, detail: "" });
  expect(await rejection(runner.reportStatus({ leaseId: lease.leaseId, status: Status.Downloading, detail: "" }))).toMatchObject({
    code: Code.FailedPrecondition,
    rawMessage: "cannot move invocation from Processing to Downloading",
  });
  expect(await rejection(runner.reportStatus({ leaseId: lease.leaseId, status: 7, detail: "" }))).toMatchObject({ code: Code.InvalidArgument, rawMessage: expect.stringMatching(/^status: /) });
  await runner.reportStatus({ leaseId: lease.leaseId, status: Status.Failed, detail: "exited with code 3" });

  const record = await invocation(tenant, id);
  expect(record.last_status).toBe(Status.Failed);
  expect(record.status.at(-1)).toMatchObject({ status: Status.Failed, detail: "exited with code 3" });
  expect(await rejection(runner.reportStatus({ leaseId: lease.leaseId, status: Status.Completed, detail: "" }))).toMatchObject({ code: Code.FailedPrecondition, rawMessage: expect.stringMatching(/^lease lost/) });
  expect(await runner.renewLease({ leaseId: lease.leaseId, invocationId: id })).toMatchObject({ cancelRequested: true });
});

test("a user's cancel tells the runner to stop at its next renewal, and refuses its later reports", async () => {
  const { tenant, action, datasetId } = await tenantWithAction();
  const id = await invoke(tenant, action, datasetId);
  const lease = (await claim(tenant))!;
  await runner.reportStatus({ leaseId: lease.leaseId, status: Status.Processing, detail: "" });

  ok(await tenant.client.post(invocationPath(id, "/cancel")));

  expect(await runner.renewLease({ leaseId: lease.leaseId, invocationId: id })).toMatchObject({ cancelRequested: true });
  expect(await rejection(runner.reportStatus({ leaseId: lease.leaseId, status: Status.Failed, detail: "killed" }))).toMatchObject({ code: Code.FailedPrecondition });
  expect((await invocation(tenant, id)).last_status).toBe(Status.Cancelled);
});

test("a lapsed lease sends the invocation back to the queue; the third lapse fails it", async () => {
  const { tenant, action, datasetId } = await tenantWithAction();
  const id = await invoke(tenant, action, datasetId);
  const queuedAgain = (attempt: number) =>
    waitFor(`retry ${attempt}`, async () => ((await invocation(tenant, id)).last_status === Status.Queued && (await history(tenant, id)).length > 2 * attempt ? true : undefined));

  for (const attempt of [1, 2]) {
    const lease = (await claim(tenant, `r${attempt}`))!;
    expect(lease.invocation!.invocationId).toBe(id);
    await queuedAgain(attempt);
    expect(await rejection(runner.renewLease({ leaseId: lease.leaseId, invocationId: id }))).toMatchObject({ code: Code.FailedPrecondition });
  }
  await claim(tenant, "r3");
  await waitFor("the third lapse to fail it", async () => ((await invocation(tenant, id)).last_status === Status.Failed ? true : undefined));

  expect(await history(tenant, id)).toEqual([
    [Status.Queued, null],
    [Status.Scheduled, "claimed by runner r1"],
    [Status.Failed, "runner r1 lost its lease"],
    [Status.Queued, "retry 1"],
    [Status.Scheduled, "claimed by runner r2"],
    [Status.Failed, "runner r2 lost its lease"],
    [Status.Queued, "retry 2"],
    [Status.Scheduled, "claimed by runner r3"],
    [Status.Failed, "lost its runner 3 times"],
  ]);
});

test("an org holds at most its concurrency limit of live leases; other orgs still get theirs", async () => {
  const { tenant, action, datasetId } = await tenantWithAction();
  const other = await tenantWithAction();
  for (let i = 0; i < 5; i++) await invoke(tenant, action, datasetId);
  const otherId = await invoke(other.tenant, other.action, other.datasetId);

  const leases: RunnerLease[] = [];
  for (let i = 0; i < 4; i++) leases.push((await claim(tenant))!);
  expect(leases.every((lease) => lease !== undefined)).toBe(true);
  expect(await claim(tenant)).toBeUndefined();
  expect((await claim(other.tenant))?.invocation?.invocationId).toBe(otherId);

  await runner.reportStatus({ leaseId: leases[0]!.leaseId, status: Status.Completed, detail: "" });
  expect(await claim(tenant)).toBeDefined();
});

test("an invocation past its timeout fails, and its runner is told to stop", async () => {
  const { tenant, action, datasetId } = await tenantWithAction();
  const id = await invoke(tenant, action, datasetId, { timeout: 1 });
  const lease = (await claim(tenant))!;
  await backdateStart(t, id, 0.9);
  // Not yet a minute: several sweeps leave it alone.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect((await invocation(tenant, id)).last_status).toBe(Status.Scheduled);

  await backdateStart(t, id, 0.2);
  await waitFor("the timeout", async () => ((await invocation(tenant, id)).last_status === Status.Failed ? true : undefined));

  expect((await history(tenant, id)).at(-1)).toEqual([Status.Failed, "timed out after 1 min"]);
  expect(await runner.renewLease({ leaseId: lease.leaseId, invocationId: id })).toMatchObject({ cancelRequested: true });
});

test("an invocation running without a lease fails once its heartbeats stop", async () => {
  const { tenant, action, datasetId } = await tenantWithAction();
  const id = await invoke(tenant, action, datasetId);
  ok(await tenant.client.post(invocationPath(id, "/status"), { status: Status.Processing, detail: "run elsewhere" }));
  ok(await tenant.client.post(invocationPath(id, "/heartbeat")));
  const lastHeartbeat: string = (await invocation(tenant, id)).last_heartbeat;

  await waitFor("the heartbeat timeout", async () => ((await invocation(tenant, id)).last_status === Status.Failed ? true : undefined));

  expect((await history(tenant, id)).at(-1)).toEqual([Status.Failed, `no heartbeat since ${lastHeartbeat}`]);
});

test("the lease's API key acts for the invocation's user in its org through the gateway, until it expires", async () => {
  const { tenant, action, datasetId } = await tenantWithAction();
  await invoke(tenant, action, datasetId);
  const lease = (await claim(tenant))!;
  const asInvocation = apiClient(t.url, lease.apiKey);

  expect(ok(await asInvocation.get(`/v1/datasets/${datasetId}`)).dataset_id).toBe(datasetId);
  expect(ok(await asInvocation.get("/v1/users/whoami")).user_id).toBe(tenant.userId);

  const claims = { orgId: tenant.orgId, userId: tenant.userId, invocationId: lease.invocation!.invocationId };
  const expired = mintInvocationToken({ ...claims, exp: Math.floor(Date.now() / 1000) - 1 }, t.internalAuthSecret);
  expectError(await apiClient(t.url, expired).get(`/v1/datasets/${datasetId}`), 401, `invocation token of '${claims.invocationId}' expired`);
  const forged = mintInvocationToken({ ...claims, exp: Math.floor(Date.now() / 1000) + 600 }, "not-the-internal-key-not-the-internal-key");
  expectError(await apiClient(t.url, forged).get(`/v1/datasets/${datasetId}`), 401, "invalid invocation token");
});

test("the API key stops working once its user leaves the org", async () => {
  const { tenant, action, datasetId } = await tenantWithAction();
  await invoke(tenant, action, datasetId);
  const lease = (await claim(tenant))!;
  ok(await t.admin.delete(`/v1/orgs/id/${tenant.orgId}/users/id/${encodeURIComponent(tenant.userId)}`));

  expectError(await apiClient(t.url, lease.apiKey).get(`/v1/datasets/${datasetId}`), 401, `the invocation's user is no longer a member of org '${tenant.orgId}'`);
});
