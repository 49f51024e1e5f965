import { createDataset, expectBadRequest, expectError, startWithTenants, uploadFiles, waitFor, type ApiClient, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// How sessions complete and how far their files are ingested, through the gateway: complete_session
// (idempotent), completion by inactivity (the data service's sweep runs every 50 ms here against a
// clock the test moves, so nothing waits on wall time), and the ingestion status, summaries and
// skip. A file nothing is ingesting is not ingestable; one marked ingestion_complete is ingested.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
/** How far the sweep's clock runs ahead of the wall clock. */
let aheadMs = 0;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["completion-alice", "completion-bob"], {
    data: { sessionCompletion: { intervalMs: 50, now: () => new Date(Date.now() + aheadMs) } },
  });
});
afterAll(() => t?.close());

async function createSession(client: ApiClient, body: Record<string, unknown> = {}): Promise<any> {
  const res = await client.post("/v1/sessions", { name: "run", ...body });
  if (res.status !== 200) throw new Error(`create session failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function sessionWithFiles(client: ApiClient, paths: string[], body: Record<string, unknown> = {}): Promise<{ session: any; fileIds: string[] }> {
  const datasetId = await createDataset(client, "completion");
  await uploadFiles(client, datasetId, Object.fromEntries(paths.map((p) => [p, p])));
  const fileIds: string[] = [];
  for (const path of paths) fileIds.push((await client.get(`/v1/files/record/path/${encodeURIComponent(path)}/association/${datasetId}`)).body.data.file_id);
  const session = await createSession(client, body);
  await client.post(`/v1/sessions/id/${session.session_id}/files`, { files: fileIds.map((file_id) => ({ file_id })) });
  return { session, fileIds };
}

const read = async (client: ApiClient, sessionId: string) => (await client.get(`/v1/sessions/id/${sessionId}`)).body.data;

describe("complete_session", () => {
  test("completes the session as the caller; again, it changes nothing", async () => {
    const session = await createSession(alice.client, { completion_policy: { inactivity_minutes: 30 } });
    const res = await alice.client.post(`/v1/sessions/id/${session.session_id}/complete`);
    expect(res.status).toBe(200);
    const done = res.body.data;
    expect(done).toMatchObject({ status: "complete", completed_by: alice.userId, completes_at: null, completion_policy: { inactivity_minutes: 30 } });
    expect(Date.parse(done.completed_at)).toBeGreaterThanOrEqual(Date.parse(session.created));
    expect((await alice.client.post(`/v1/sessions/id/${session.session_id}/complete`)).body.data).toEqual(done);
    expectError(await bob.client.post(`/v1/sessions/id/${session.session_id}/complete`), 404, `session '${session.session_id}' not found`);
  });

  test("activity (files added) moves completes_at on", async () => {
    const session = await createSession(alice.client, { completion_policy: { inactivity_minutes: 10 } });
    const { fileIds } = await sessionWithFiles(alice.client, ["a.txt"]);
    await alice.client.post(`/v1/sessions/id/${session.session_id}/files`, { files: [{ file_id: fileIds[0] }] });
    const after = await read(alice.client, session.session_id);
    expect(Date.parse(after.completes_at) - Date.parse(after.modified)).toBe(10 * 60_000);
    expect(Date.parse(after.completes_at)).toBeGreaterThan(Date.parse(session.completes_at));
  });
});

describe("completion by inactivity", () => {
  afterEach(() => {
    aheadMs = 0;
  });

  test("completes an in-progress session once its inactivity has run out, and no other", async () => {
    const short = await createSession(alice.client, { completion_policy: { inactivity_minutes: 1 } });
    const long = await createSession(alice.client, { completion_policy: { inactivity_minutes: 60 } });
    const manual = await createSession(alice.client);
    aheadMs = 2 * 60_000;
    const done = await waitFor("the sweep to complete the session", async () => {
      const s = await read(alice.client, short.session_id);
      return s.status === "complete" ? s : undefined;
    });
    expect(done).toMatchObject({ completed_by: "system:inactivity", completes_at: null, ingestion_count: 1 });
    expect(Date.parse(done.completed_at)).toBeGreaterThanOrEqual(Date.parse(short.completes_at));
    expect(await read(alice.client, long.session_id)).toMatchObject({ status: "in_progress", completes_at: long.completes_at });
    expect(await read(alice.client, manual.session_id)).toMatchObject({ status: "in_progress", completes_at: null });
  });
});

describe("ingestion status", () => {
  test("counts the session's files: in progress, then ingested on completion (once)", async () => {
    const { session, fileIds } = await sessionWithFiles(alice.client, ["a.mcap", "b.txt"]);
    expect((await alice.client.put(`/v1/files/record/${fileIds[0]}`, { ingestion_complete: true })).status).toBe(200);
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}/ingestion`)).body.data).toEqual({
      session_id: session.session_id,
      state: "in_progress",
      ingestion_count: 0,
      pending_files: [],
      pending_file_count: 0,
      failed_file_count: 0,
      ingested_file_count: 1,
      not_ingestable_file_count: 1,
      skipped_files: [],
      skipped_file_count: 0,
    });
    const completed = (await alice.client.post(`/v1/sessions/id/${session.session_id}/complete`)).body.data;
    expect(completed).toMatchObject({ ingestion_count: 1, ingested_at: completed.completed_at });
    expect((await alice.client.get(`/v1/sessions/id/${session.session_id}/ingestion`)).body.data).toMatchObject({ state: "ingested", ingestion_count: 1 });
    expect((await alice.client.post(`/v1/sessions/id/${session.session_id}/complete`)).body.data).toMatchObject({ ingestion_count: 1, ingested_at: completed.ingested_at });
  });

  test("skip stops waiting for files of the session and names the ids that are not", async () => {
    const { session, fileIds } = await sessionWithFiles(alice.client, ["a.txt"]);
    const res = await alice.client.post(`/v1/sessions/id/${session.session_id}/ingestion/skip`, { file_ids: [fileIds[0], "fl_other"] });
    expect(res.status).toBe(200);
    expect(res.body.data.not_in_session).toEqual(["fl_other"]);
    expect(res.body.data.ingestion).toMatchObject({
      skipped_file_count: 1,
      not_ingestable_file_count: 0,
      skipped_files: [{ file_id: fileIds[0], relative_path: "a.txt", skipped_at: expect.any(String), skipped_by: alice.userId }],
    });
    expectBadRequest(await alice.client.post(`/v1/sessions/id/${session.session_id}/ingestion/skip`, { file_ids: [] }), "file_ids");
    expectBadRequest(await alice.client.post(`/v1/sessions/id/${session.session_id}/ingestion/skip`, { file_ids: Array.from({ length: 1001 }, (_, i) => `fl_${i}`) }), "file_ids");
  });

  test("summaries come in request order; sessions of other orgs and unknown ids are left out", async () => {
    const [a, b] = [await createSession(alice.client), await createSession(alice.client)];
    const bobs = await createSession(bob.client);
    const res = await alice.client.post("/v1/sessions/ingestion/summaries", { session_ids: [b.session_id, bobs.session_id, "se_missing", a.session_id] });
    expect(res.body.data.summaries).toEqual(
      [b, a].map((s) => ({ session_id: s.session_id, state: "in_progress", ingested_file_count: 0, pending_file_count: 0, not_ingestable_file_count: 0, skipped_file_count: 0, failed_file_count: 0 })),
    );
    expectBadRequest(await alice.client.post("/v1/sessions/ingestion/summaries", { session_ids: [] }), "session_ids");
    expectBadRequest(await alice.client.post("/v1/sessions/ingestion/summaries", { session_ids: Array.from({ length: 101 }, (_, i) => `se_${i}`) }), "session_ids");
  });
});
