import {
  apiClient,
  createDataset,
  freePort,
  startOwnKafka,
  platformOnOwnPostgres,
  startTestPlatform,
  startWithTenants,
  uploadFiles,
  waitFor,
  type ApiClient,
  type HarnessServer,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// The gateway's probes (issue 9: "readiness says so"): /healthz answers while the process does,
// /readyz asks every service's CheckHealth and names the component that is not ready: the events
// transport with the broker away (while uploads still work), the database while PostgreSQL is down.
// Neither needs a token.

const SERVICES = ["admin", "data", "compute", "assistant", "registry"];
const ALL_READY = Object.fromEntries(SERVICES.map((name) => [name, { database: "ready", events: "ready" }]));

/** A client without a token, as a Kubernetes probe calls. */
const anonymous = (t: TestPlatform): ApiClient => apiClient(t.url);

/** Polls /readyz until it answers `status`, returning that answer. */
const readyzUntil = (t: TestPlatform, status: number) =>
  waitFor(`/readyz ${status}`, async () => {
    const answer = await anonymous(t).get("/readyz");
    return answer.status === status ? answer : undefined;
  });

describe("a platform with everything up", () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform();
  });
  afterAll(async () => t?.close());

  test("/healthz is 200 without a token", async () => {
    const answer = await anonymous(t).get("/healthz");
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: { data: { status: "ok" } } });
  });

  test("/readyz is 200 with every component of every service ready", async () => {
    const answer = await anonymous(t).get("/readyz");
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: { data: { status: "ready", services: ALL_READY } } });
  });

  test("an exclude that names no component is a 400 naming the parameter", async () => {
    const answer = await anonymous(t).get("/readyz?exclude=kafka");
    expect({ status: answer.status, message: answer.body.error.message }).toEqual({ status: 400, message: "exclude: must be one of database, events, rpc" });
  });

  test("only GET is a probe: another method on the path is no operation", async () => {
    expect((await anonymous(t).post("/readyz", {})).status).toBe(404);
  });
});

describe("a platform whose Kafka broker is away", () => {
  let port: number;
  let t: TestPlatform;
  let alice: TestTenant;
  let broker: HarnessServer<{ brokers: string }> | undefined;
  beforeAll(async () => {
    port = await freePort();
    [t, alice] = await startWithTenants(["health-kafka"], { kafka: true, kafkaBrokers: `127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await t?.close();
    await broker?.stop();
  });

  test("/readyz is 503 naming the events component while uploads work, and 200 once a broker is there", async () => {
    const answer = await anonymous(t).get("/readyz");
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("1");
    expect(answer.body.error).toEqual({ error_code: 503, message: expect.stringContaining("data.events connecting"), stack_trace: "" });
    expect(answer.body.data.status).toBe("not_ready");
    for (const name of SERVICES) expect(answer.body.data.services[name]).toEqual({ database: "ready", events: "connecting" });
    expect((await anonymous(t).get("/healthz")).status).toBe(200);
    // The gateway's readiness probe leaves the shared broker out: every replica stays in service.
    const probe = await anonymous(t).get("/readyz?exclude=database&exclude=events");
    expect({ status: probe.status, state: probe.body.data.status }).toEqual({ status: 200, state: "ready" });
    expect(probe.body.data.services.data).toEqual({ database: "ready", events: "connecting" });

    const datasetId = await createDataset(alice.client, "while-away");
    await uploadFiles(alice.client, datasetId, { "run.bag": "bag" });

    broker = await startOwnKafka(port);
    const ready = await readyzUntil(t, 200);
    expect(ready.body).toEqual({ data: { status: "ready", services: ALL_READY } });
  }, 240_000);
});

describe("a platform whose PostgreSQL is halted", () => {
  const own = platformOnOwnPostgres();

  test("/readyz is 503 naming the database component while it is halted, and 200 once it is back", async () => {
    await own.pg.call("halt");
    const answer = await readyzUntil(own.t, 503);
    expect(answer.body.error.message).toMatch(/^not ready: admin\.database /);
    for (const name of SERVICES) expect(answer.body.data.services[name].database).not.toBe("ready");
    expect((await anonymous(own.t).get("/healthz")).status).toBe(200);
    expect((await anonymous(own.t).get("/readyz?exclude=database&exclude=events")).status).toBe(200);

    await own.pg.call("resume");
    await readyzUntil(own.t, 200);
  }, 120_000);
});

describe("a platform one of whose services is unreachable", () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform();
  });
  afterAll(async () => t?.close());

  test("the gateway's readiness probe is 503 naming the service's rpc, with the other services' detail beside it", async () => {
    await t.platform.services.registry.close();
    const answer = await anonymous(t).get("/readyz?exclude=database&exclude=events");
    expect(answer.status).toBe(503);
    expect(answer.body.error.message).toMatch(/^not ready: registry\.rpc /);
    expect(answer.body.data.services.data).toEqual({ database: "ready", events: "ready" });
    expect((await anonymous(t).get("/healthz")).status).toBe(200);
  });
});
