import { startOwnPostgres, startWithTenants, waitFor, type ApiResponse, type HarnessServer, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// PostgreSQL stopped under traffic and started again (issue 9, finding 5): while it is away every
// answer is a 503 with the error envelope, which clients retry (never a 401 that calls the token bad,
// never a 500); once it is back the same platform serves again, without a restart. The platform runs
// on a PostgreSQL server of this file's own, since the shared one must not stop.

let pg: HarnessServer<{ url: string }>;
let t: TestPlatform;
let alice: TestTenant;

beforeAll(async () => {
  pg = await startOwnPostgres();
  [t, alice] = await startWithTenants(["outage"], { databaseUrl: pg.info.url });
});
afterAll(async () => {
  await t?.close();
  await pg?.stop();
});

/** A search through the token check (no cache in tests) and a write: both need the database. */
const requests = [() => alice.client.post("/v1/datasets/query", { limit: 5 }), () => alice.client.post("/v1/datasets", { name: "during" })];

/** Sends the requests over and over until `until` resolves, keeping every answer. */
async function traffic(until: Promise<unknown>): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  let done = false;
  void until.finally(() => (done = true));
  while (!done) for (const request of requests) answers.push(await request());
  return answers;
}

test("while PostgreSQL is away every answer is 503 with the error envelope, and it serves again once it is back", async () => {
  const before = (await alice.client.post("/v1/datasets", { name: "before" })).body.data.dataset_id as string;

  const halted = pg.call("halt");
  const duringHalt = await traffic(halted);
  const whileDown = await traffic(new Promise((resolve) => setTimeout(resolve, 1500)));
  const resumed = pg.call("resume");
  const duringResume = await traffic(resumed);

  const answers = [...duringHalt, ...whileDown, ...duringResume];
  expect(answers.filter((a) => a.status !== 200 && a.status !== 503).map((a) => [a.status, a.body])).toEqual([]);
  const unavailable = answers.filter((a) => a.status === 503);
  expect(whileDown.length).toBeGreaterThan(0);
  expect(whileDown.every((a) => a.status === 503)).toBe(true);
  for (const answer of unavailable) {
    expect(answer.body).toEqual({ error: { error_code: 503, message: expect.any(String), stack_trace: "" } });
    expect(answer.headers.get("retry-after")).toBe("1");
  }

  await waitFor("the platform to serve again", async () => ((await alice.client.get(`/v1/datasets/${before}`)).status === 200 ? true : undefined));
  const after = await alice.client.post("/v1/datasets", { name: "after" });
  expect(after.status).toBe(200);
  expect((await alice.client.get(`/v1/datasets/${after.body.data.dataset_id}`)).body.data.name).toBe("after");
});
