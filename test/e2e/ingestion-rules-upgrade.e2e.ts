import { Client } from "pg";
import { apiClient, createDataset, startTestPlatform, startWithTenants, uploadFiles, waitFor, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// An org whose ingestion rules predate the data service keeping their path patterns (data
// migration 0024) had its files' `ingestable` from their uploads alone. Compute migration 0011
// lists every org with rules; after a start the compute service sends each listed org's patterns
// once, and the data service decides every file of that org again. Simulated here on a real
// database: the state before the change is written with SQL between two starts of the platform.

let t: TestPlatform;
let org: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  [t, org, other] = await startWithTenants(["upgrade-rules", "upgrade-other"]);
});
afterAll(() => t?.close());

async function ok(res: Promise<{ status: number; body: any }>): Promise<any> {
  const answer = await res;
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status: 200, error: undefined });
  return answer.body.data;
}

const verdicts = async (tenant: TestTenant, dataset: string) =>
  Object.fromEntries((await ok(tenant.client.post(`/v1/datasets/${dataset}/files/query`, {}))).items.map((f: any) => [f.relative_path, f.ingestable]));

async function withDb<T>(work: (db: Client) => Promise<T>): Promise<T> {
  const db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

test("after a restart, the files of an org listed by the migration follow its rules; an org without rules is left as it was", async () => {
  const dataset = await createDataset(org.client, "upgrade");
  await uploadFiles(org.client, dataset, { "in/a.log": "1", "b.log": "2" });
  const otherDataset = await createDataset(other.client, "upgrade-other");
  await uploadFiles(other.client, otherDataset, { "in/a.log": "1" });
  await ok(org.client.post("/v1/actions", { name: "ingest", uri: "registry.example.com/ingest:1" }));
  await ok(org.client.post("/v1/ingestion-rules", { name: "logs-in", include_patterns: ["in/**/*.log"], invocation: { action: { name: "ingest" } } }));
  expect(await verdicts(org, dataset)).toEqual({ "in/a.log": true, "b.log": false });

  // Before the change: the rule existed, the data service never heard of it, and the upload (which
  // ran before the rule) marked nothing. The migration listed the org.
  await withDb(async (db) => {
    await db.query("delete from data.ingestion_path_rules where org_id = $1", [org.orgId]);
    await db.query("update data.fs_nodes set ingestable_version = null where org_id = $1", [org.orgId]);
    await db.query("delete from compute.rule_paths_resend");
    await db.query("insert into compute.rule_paths_resend (org_id) values ($1), ($2)", [org.orgId, other.orgId]);
  });
  expect(await verdicts(org, dataset)).toEqual({ "in/a.log": false, "b.log": false });

  const previous = { databaseUrl: t.databaseUrl, namespace: t.namespace, adminToken: t.adminToken, internalAuthSecret: t.internalAuthSecret };
  await t.close();
  t = await startTestPlatform({ restartOf: previous });
  // The gateway listens on a new port: the same tokens, new clients.
  org = { ...org, client: apiClient(t.url, org.token) };
  other = { ...other, client: apiClient(t.url, other.token) };

  await waitFor("the listed orgs' patterns sent", () => withDb(async (db) => ((await db.query("select 1 from compute.rule_paths_resend")).rowCount === 0 ? true : undefined)));
  expect(await verdicts(org, dataset)).toEqual({ "in/a.log": true, "b.log": false });
  // The other org has only the default MCAP rule its first upload seeded: its log stays not ingestable.
  expect(await verdicts(other, otherDataset)).toEqual({ "in/a.log": false });
  const kept = await withDb(async (db) => (await db.query("select org_id from data.ingestion_path_rules where org_id = any($1) order by org_id", [[org.orgId, other.orgId]])).rows.map((r) => r.org_id));
  expect(kept.sort()).toEqual([org.orgId, other.orgId].sort());
});
