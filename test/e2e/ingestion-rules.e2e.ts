import { MCAP_INGESTION_ACTION } from "@hangar/shared";
import {
  addMember,
  createDataset,
  createTenant,
  expectBadRequest,
  startWithTenants,
  uploadFiles,
  waitFor,
  type ApiClient,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// Ingestion rules (routes.md rows 240-251, sdk-0.62-routes.md row 72 and the managed-trigger rules
// of rows 5 and 6) through the gateway: CRUD with the managed trigger kept in step, match_paths,
// the defaults, existing-files reports, ingest_files_now and latest_runs; bad input, another org,
// a member who is not an admin. The auto-ingest path over Kafka with a runner is in
// ingestion-rules-flow.e2e.ts.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let aliceAdmin: ApiClient;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["rules-alice", "rules-bob"]);
  // An action no runner takes here: runs stay `running`, which is what these tests look at.
  await ok(alice.client.post("/v1/actions", { name: "ingest", uri: "registry.example.com/ingest:1", parameters: [{ name: "mode", default: "full" }] }));
  aliceAdmin = { ...t.admin, get: (p, h) => t.admin.get(p, { "X-Service-Org-Id": alice.orgId, ...h }), post: (p, b, h) => t.admin.post(p, b, { "X-Service-Org-Id": alice.orgId, ...h }) } as ApiClient;
});
afterAll(() => t?.close());

async function ok(res: Promise<{ status: number; body: any }>): Promise<any> {
  const answer = await res;
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status: 200, error: undefined });
  return answer.body.data;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}`;
const invocation = { action: { name: "ingest" }, parameter_values: { mode: "fast" } };

function createRule(client: ApiClient, body: Record<string, unknown> = {}) {
  return client.post("/v1/ingestion-rules", { name: unique("rule"), include_patterns: ["**/*.bag"], invocation, ...body });
}

async function listAll(client: ApiClient): Promise<any[]> {
  const items: any[] = [];
  let token: string | null = null;
  do {
    const page: any = await ok(client.get(`/v1/ingestion-rules?limit=2${token ? `&page_token=${token}` : ""}`));
    items.push(...page.items);
    token = page.next_token;
  } while (token);
  return items;
}

describe("CRUD and the managed trigger", () => {
  test("a rule reads back by id and in the list, with every field of IngestionRuleRecord", async () => {
    const name = unique("shape");
    const rule = await ok(createRule(alice.client, { name, description: "bags", exclude_patterns: ["tmp/**"] }));
    expect(rule).toEqual({
      rule_id: expect.stringMatching(/^ir_/),
      org_id: alice.orgId,
      name,
      description: "bags",
      include_patterns: ["**/*.bag"],
      exclude_patterns: ["tmp/**"],
      invocation: {
        action: { name: "ingest", digest: null, owner: null },
        invocation_input: null,
        parameter_values: { mode: "fast" },
        compute_requirement_overrides: null,
        container_parameter_overrides: null,
        timeout: null,
        upload_destination: null,
      },
      auto_ingest: true,
      trigger_id: expect.stringMatching(/^tr_/),
      created: expect.any(String),
      created_by: alice.userId,
      modified: expect.any(String),
      modified_by: alice.userId,
    });
    expect(await ok(alice.client.get(`/v1/ingestion-rules/id/${rule.rule_id}`))).toEqual(rule);
    expect((await listAll(alice.client)).map((r) => r.rule_id)).toContain(rule.rule_id);
  });

  test("the rule's trigger is managed by it: file.uploaded, its patterns, enabled while auto_ingest is on", async () => {
    const rule = await ok(createRule(alice.client));
    const trigger = await ok(alice.client.get(`/v1/triggers/id/${rule.trigger_id}`));
    expect(trigger).toMatchObject({
      engine: "v2",
      enabled: true,
      managed_by: { kind: "ingestion_rule", id: rule.rule_id },
      fires_on: { type: "events", events: ["file.uploaded"] },
      targets: [{ type: "invoke_action", action: { name: "ingest" }, required_inputs: ["**/*.bag"], parameter_values: { mode: "fast" } }],
    });
    const off = await ok(alice.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, { auto_ingest: false, include_patterns: ["logs/*.bag"] }));
    expect(off).toMatchObject({ auto_ingest: false, include_patterns: ["logs/*.bag"], trigger_id: rule.trigger_id });
    expect(await ok(alice.client.get(`/v1/triggers/id/${rule.trigger_id}`))).toMatchObject({ enabled: false, targets: [{ required_inputs: ["logs/*.bag"] }] });
  });

  test("a managed trigger cannot be changed or deleted through the trigger routes (400 naming it)", async () => {
    const rule = await ok(createRule(alice.client));
    const before = await ok(alice.client.get(`/v1/triggers/id/${rule.trigger_id}`));
    expectBadRequest(await alice.client.put(`/v1/triggers/id/${rule.trigger_id}`, { enabled: false }), "trigger_id");
    expectBadRequest(await alice.client.put(`/v1/triggers/id/${rule.trigger_id}`, { name: "renamed" }), "trigger_id");
    expectBadRequest(await alice.client.delete(`/v1/triggers/id/${rule.trigger_id}`), "trigger_id");
    expectBadRequest(await alice.client.delete(`/v1/triggers/${before.name}`), "name");
    expect(await ok(alice.client.get(`/v1/triggers/id/${rule.trigger_id}`))).toEqual(before);
  });

  test("update changes only the fields present; a null description clears it; a name in use is a 409", async () => {
    const taken = await ok(createRule(alice.client));
    const rule = await ok(createRule(alice.client, { description: "d" }));
    const renamed = unique("renamed");
    const updated = await ok(alice.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, { name: renamed, description: null }));
    expect(updated).toMatchObject({ name: renamed, description: null, include_patterns: rule.include_patterns, invocation: rule.invocation, auto_ingest: true });
    expect((await alice.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, { name: taken.name })).status).toBe(409);
    expect((await createRule(alice.client, { name: taken.name })).status).toBe(409);
  });

  test("clearing the invocation of a rule that does not auto-ingest removes its trigger; setting one again makes a new one", async () => {
    const rule = await ok(createRule(alice.client, { auto_ingest: false }));
    const cleared = await ok(alice.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, { invocation: null }));
    expect(cleared).toMatchObject({ invocation: null, trigger_id: null, auto_ingest: false });
    expect((await alice.client.get(`/v1/triggers/id/${rule.trigger_id}`)).status).toBe(404);
    const again = await ok(alice.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, { invocation, auto_ingest: true }));
    expect(again.trigger_id).toMatch(/^tr_/);
    expect(await ok(alice.client.get(`/v1/triggers/id/${again.trigger_id}`))).toMatchObject({ enabled: true, managed_by: { kind: "ingestion_rule", id: rule.rule_id } });
  });

  test("delete removes the rule and its trigger", async () => {
    const rule = await ok(createRule(alice.client));
    expect(await ok(alice.client.delete(`/v1/ingestion-rules/id/${rule.rule_id}`))).toBeNull();
    expect((await alice.client.get(`/v1/ingestion-rules/id/${rule.rule_id}`)).status).toBe(404);
    expect((await alice.client.get(`/v1/triggers/id/${rule.trigger_id}`)).status).toBe(404);
    expect((await alice.client.delete(`/v1/ingestion-rules/id/${rule.rule_id}`)).status).toBe(404);
  });

  test("a rule without auto_ingest needs no invocation and has no trigger", async () => {
    const rule = await ok(alice.client.post("/v1/ingestion-rules", { name: unique("manual"), include_patterns: ["*.csv"], auto_ingest: false }));
    expect(rule).toMatchObject({ invocation: null, trigger_id: null, auto_ingest: false, exclude_patterns: [], description: null });
  });
});

describe("bad input is a 400 naming the field, and writes nothing", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["no include patterns", { include_patterns: [] }, "include_patterns"],
    ["only blank include patterns", { include_patterns: ["  "] }, "include_patterns"],
    ["a negated include pattern", { include_patterns: ["!*.bag"] }, "include_patterns[0]"],
    ["a blank exclude pattern", { exclude_patterns: ["*.tmp", " "] }, "exclude_patterns[1]"],
    ["a negated exclude pattern", { exclude_patterns: ["!x"] }, "exclude_patterns[0]"],
    ["too many wildcards", { include_patterns: ["*".repeat(40)] }, "include_patterns[0]"],
    ["no name", { name: "" }, "name"],
    ["auto_ingest without an invocation", { invocation: null }, "invocation"],
    ["an invocation that is not an object", { invocation: "ingest" }, "invocation"],
    ["an invocation without an action", { invocation: { parameter_values: {} } }, "invocation.action"],
    ["an unknown parameter", { invocation: { action: { name: "ingest" }, parameter_values: { nope: 1 } } }, "invocation.parameter_values.nope"],
    ["a bad timeout", { invocation: { action: { name: "ingest" }, timeout: "soon" } }, "invocation.timeout"],
  ];
  test.each(cases)("%s", async (_label, body, field) => {
    const name = unique("bad");
    expectBadRequest(await createRule(alice.client, { name, ...body }), field);
    expect((await listAll(alice.client)).map((r) => r.name)).not.toContain(name);
  });

  test("update refuses bad fields and changes nothing", async () => {
    const rule = await ok(createRule(alice.client));
    for (const [body, field] of [
      [{ include_patterns: [] }, "include_patterns"],
      [{ include_patterns: "x" }, "include_patterns"],
      [{ exclude_patterns: [1] }, "exclude_patterns[0]"],
      [{ auto_ingest: "yes" }, "auto_ingest"],
      [{ name: 5 }, "name"],
      [{ invocation: null }, "invocation"],
      [{ invocation: { action: {} } }, "invocation.action.name"],
    ] as const) {
      expectBadRequest(await alice.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, body), field);
    }
    expect(await ok(alice.client.get(`/v1/ingestion-rules/id/${rule.rule_id}`))).toEqual(rule);
  });

  test("list limits and tokens are checked", async () => {
    expectBadRequest(await alice.client.get("/v1/ingestion-rules?limit=0"), "limit");
    expectBadRequest(await alice.client.get("/v1/ingestion-rules?page_token=garbage!"), "page_token");
  });

  test("id lists are bounded: ingest 1-100, latest runs 1-200, match at most 200 paths", async () => {
    expectBadRequest(await alice.client.post("/v1/ingestion-rules/ingest", { file_ids: [] }), "file_ids");
    expectBadRequest(await alice.client.post("/v1/ingestion-rules/ingest", { file_ids: Array.from({ length: 101 }, (_, i) => `fl_${i}`) }), "file_ids");
    expectBadRequest(await alice.client.post("/v1/ingestion-rules/runs/latest", { file_ids: [] }), "file_ids");
    expectBadRequest(await alice.client.post("/v1/ingestion-rules/runs/latest", { file_ids: Array.from({ length: 201 }, (_, i) => `fl_${i}`) }), "file_ids");
    expectBadRequest(await alice.client.post("/v1/ingestion-rules/match", { paths: Array.from({ length: 201 }, (_, i) => `p${i}.bag`) }), "paths");
  });
});

describe("match_paths", () => {
  test("each path maps to the rules matching it, oldest first: ** and * and ?, include then exclude, never a dotfile", async () => {
    const org = await startOrg("match");
    const bags = await ok(createRule(org.client, { include_patterns: ["**/*.bag"], exclude_patterns: ["scratch/**"] }));
    const runs = await ok(createRule(org.client, { include_patterns: ["runs/run_?.bag", "*.mcap"] }));
    const paths = ["a.bag", "x/y/z.bag", "scratch/t.bag", "runs/run_1.bag", "runs/run_10.bag", "deep/log.mcap", "notes.txt", ".hidden/a.bag", "x/.b.bag"];
    const { matches } = await ok(org.client.post("/v1/ingestion-rules/match", { paths }));
    const ids = Object.fromEntries(Object.entries(matches as Record<string, any[]>).map(([path, rules]) => [path, rules.map((r) => r.rule_id)]));
    expect(ids).toEqual({
      "a.bag": [bags.rule_id],
      "x/y/z.bag": [bags.rule_id],
      "scratch/t.bag": [],
      "runs/run_1.bag": [bags.rule_id, runs.rule_id],
      "runs/run_10.bag": [bags.rule_id],
      "deep/log.mcap": [runs.rule_id],
      "notes.txt": [],
      ".hidden/a.bag": [],
      "x/.b.bag": [],
    });
    expect(matches["a.bag"][0]).toEqual(bags);
  });
});

describe("defaults", () => {
  test("the one default is MCAP files run by the built-in MCAP action; already_present tracks the org's rules", async () => {
    const org = await startOrg("defaults");
    const { items } = await ok(org.client.get("/v1/ingestion-rules/defaults"));
    expect(items).toEqual([
      {
        name: "MCAP files",
        category: "Other",
        include_patterns: ["**/*.mcap"],
        exclude_patterns: [],
        invocation: expect.objectContaining({ action: { name: MCAP_INGESTION_ACTION.name, owner: MCAP_INGESTION_ACTION.owner, digest: null } }),
        already_present: false,
        for_new_orgs: true,
        needs_settings: false,
      },
    ]);
    await ok(createRule(org.client, { include_patterns: ["**/*.mcap"] }));
    expect((await ok(org.client.get("/v1/ingestion-rules/defaults"))).items[0].already_present).toBe(true);
    // Nothing is missing, so creating the defaults creates nothing.
    expect(await ok(org.client.post("/v1/ingestion-rules/defaults"))).toMatchObject({ items: [] });
  });
});

describe("another org's caller sees nothing", () => {
  test("get, update, delete, reports and ingest are 404; lists, matches and runs are empty", async () => {
    const rule = await ok(createRule(alice.client));
    const path = `/v1/ingestion-rules/id/${rule.rule_id}`;
    expect((await bob.client.get(path)).status).toBe(404);
    expect((await bob.client.put(path, { auto_ingest: false })).status).toBe(404);
    expect((await bob.client.delete(path)).status).toBe(404);
    expect((await bob.client.get(`${path}/existing-files`)).status).toBe(404);
    expect((await bob.client.get(`/v1/ingestion-rules/${rule.rule_id}/existing-files`)).status).toBe(404);
    expect((await bob.client.post(`${path}/existing-files`)).status).toBe(404);
    expect((await listAll(bob.client)).map((r) => r.rule_id)).not.toContain(rule.rule_id);
    expect((await ok(bob.client.post("/v1/ingestion-rules/match", { paths: ["a.bag"] }))).matches).toEqual({ "a.bag": [] });
    expect(await ok(alice.client.get(path))).toEqual(rule);
  });

  test("ingest_files_now reports another org's file as not_found and starts nothing; latest_runs leaves it out", async () => {
    const dataset = await createDataset(alice.client, "private");
    await ok(createRule(alice.client, { include_patterns: ["private/*.raw"] }));
    await uploadFiles(alice.client, dataset, { "private/a.raw": "x" });
    const file = await ok(alice.client.get(`/v1/files/record/path/${encodeURIComponent("private/a.raw")}/association/${dataset}`));
    const run = await runStarted(alice.client, file.file_id);
    expect((await ok(bob.client.post("/v1/ingestion-rules/ingest", { file_ids: [file.file_id] }))).results).toEqual([{ file_id: file.file_id, outcome: "not_found", rule_id: null, invocation_id: null }]);
    expect(await ok(bob.client.post("/v1/ingestion-rules/runs/latest", { file_ids: [file.file_id] }))).toEqual({ runs: {} });
    expect((await ok(alice.client.post("/v1/ingestion-rules/runs/latest", { file_ids: [file.file_id] }))).runs[file.file_id]).toEqual(run);
  });
});

describe("runs", () => {
  test("an upload runs the matching rule's trigger once per file; latest_runs shows it running with its invocation", async () => {
    const org = await startOrg("runs");
    const rule = await ok(createRule(org.client, { include_patterns: ["**/*.bag"], exclude_patterns: ["skip/**"] }));
    const dataset = await createDataset(org.client, "drive");
    await uploadFiles(org.client, dataset, { "a.bag": "1", "skip/b.bag": "2", "c.txt": "3" });
    const ids = await fileIds(org.client, dataset, ["a.bag", "skip/b.bag", "c.txt"]);
    const runs = await waitFor("the run on a.bag", async () => {
      const answer = (await ok(org.client.post("/v1/ingestion-rules/runs/latest", { file_ids: ids }))).runs;
      return answer[ids[0]!]?.invocation_id ? answer : undefined;
    });
    expect(Object.keys(runs)).toEqual([ids[0]]);
    expect(runs[ids[0]!]).toEqual({ file_id: ids[0], rule_id: rule.rule_id, trigger_id: rule.trigger_id, started: expect.any(String), status: "running", invocation_id: expect.stringMatching(/^iv_/), detail: null });
    const inv = await ok(org.client.get(`/v1/actions/invocations/${runs[ids[0]!].invocation_id}`));
    expect(inv).toMatchObject({ provenance: { source: { source_type: "Trigger", source_id: rule.trigger_id } }, input_data: ["a.bag"] });
  });

  test("ingest_files_now: started, already_running, no_matching_rule, auto_ingest_off, not_found, in request order", async () => {
    const org = await startOrg("now");
    const dataset = await createDataset(org.client, "later");
    await uploadSettled(org.client, dataset, { "x.bag": "1", "y.csv": "2", "z.log": "3" });
    const [bag, csv, log] = await fileIds(org.client, dataset, ["x.bag", "y.csv", "z.log"]);
    const rule = await ok(createRule(org.client, { include_patterns: ["*.bag"] }));
    await ok(createRule(org.client, { include_patterns: ["*.csv"], auto_ingest: false }));
    const { results } = await ok(org.client.post("/v1/ingestion-rules/ingest", { file_ids: [bag, csv, log, "fl_missing"] }));
    expect(results).toEqual([
      { file_id: bag, outcome: "started", rule_id: rule.rule_id, invocation_id: expect.stringMatching(/^iv_/) },
      { file_id: csv, outcome: "auto_ingest_off", rule_id: expect.stringMatching(/^ir_/), invocation_id: null },
      { file_id: log, outcome: "no_matching_rule", rule_id: null, invocation_id: null },
      { file_id: "fl_missing", outcome: "not_found", rule_id: null, invocation_id: null },
    ]);
    const again = (await ok(org.client.post("/v1/ingestion-rules/ingest", { file_ids: [bag] }))).results[0];
    expect(again).toEqual({ file_id: bag, outcome: "already_running", rule_id: rule.rule_id, invocation_id: results[0].invocation_id });
  });

  test("a failed run shows as failed with the detail, and ingest_files_now runs it again", async () => {
    const org = await startOrg("retry");
    const dataset = await createDataset(org.client, "retry");
    await uploadSettled(org.client, dataset, { "r.bag": "1" });
    const [file] = await fileIds(org.client, dataset, ["r.bag"]);
    await ok(createRule(org.client, { include_patterns: ["*.bag"] }));
    const first = (await ok(org.client.post("/v1/ingestion-rules/ingest", { file_ids: [file] }))).results[0];
    await ok(org.client.post(`/v1/actions/invocations/${first.invocation_id}/status`, { status: 998, detail: "cannot parse r.bag" }));
    expect((await ok(org.client.post("/v1/ingestion-rules/runs/latest", { file_ids: [file] }))).runs[file!]).toMatchObject({ status: "failed", detail: "cannot parse r.bag", invocation_id: first.invocation_id });
    const second = (await ok(org.client.post("/v1/ingestion-rules/ingest", { file_ids: [file] }))).results[0];
    expect(second).toMatchObject({ outcome: "started" });
    expect(second.invocation_id).not.toBe(first.invocation_id);
    expect((await ok(org.client.post("/v1/ingestion-rules/runs/latest", { file_ids: [file] }))).runs[file!]).toMatchObject({ status: "running", invocation_id: second.invocation_id });
  });
});

describe("ingestable", () => {
  test("a file an auto-ingesting rule matched at upload is ingestable, as is one ingested since; others are not; another org sees nothing", async () => {
    await ok(createRule(alice.client, { include_patterns: ["in/*.log"] }));
    await ok(createRule(alice.client, { include_patterns: ["off/*.log"], auto_ingest: false }));
    const dataset = await createDataset(alice.client, "ingestable");
    await uploadSettled(alice.client, dataset, { "in/a.log": "1", "off/b.log": "2", "other/c.txt": "3" });
    const [a, b, c] = await fileIds(alice.client, dataset, ["in/a.log", "off/b.log", "other/c.txt"]);
    await waitFor("in/a.log marked ingestable", async () => (await ok(alice.client.get(`/v1/files/record/${a}`))).ingestable || undefined);
    const listed = async () => Object.fromEntries((await ok(alice.client.post(`/v1/datasets/${dataset}/files/query`, {}))).items.map((f: any) => [f.relative_path, f.ingestable]));
    expect(await listed()).toMatchObject({ "in/a.log": true, "off/b.log": false, "other/c.txt": false });
    expect((await ok(alice.client.get(`/v1/files/record/${b}`))).ingestable).toBe(false);
    await ok(alice.client.put(`/v1/files/record/${c}`, { ingestion_complete: true }));
    expect((await ok(alice.client.get(`/v1/files/record/${c}`))).ingestable).toBe(true);
    expect((await bob.client.get(`/v1/files/record/${a}`)).status).toBe(404);
  });
});

describe("ingestable follows paths and rules", () => {
  // A fresh org, so that its rules are only the ones made here (and the MCAP default its first
  // upload gets, which matches none of these paths).
  let org: TestTenant;
  beforeAll(async () => {
    org = await createTenant(t, "ingestable-paths");
    await ok(org.client.post("/v1/actions", { name: "ingest", uri: "registry.example.com/ingest:1", parameters: [{ name: "mode", default: "full" }] }));
  });

  const record = async (fileId: string) => ok(org.client.get(`/v1/files/record/${fileId}`));
  const verdicts = async (dataset: string) =>
    Object.fromEntries((await ok(org.client.post(`/v1/datasets/${dataset}/files/query`, {}))).items.map((f: any) => [f.relative_path, f.ingestable]));

  test("a rename, a move or an import decides it again in its own answer; a rule created, changed or deleted decides it for every file of the org", async () => {
    const rule = await ok(createRule(org.client, { include_patterns: ["in/**/*.log"], exclude_patterns: ["**/skip.log"] }));
    await ok(createRule(org.client, { include_patterns: ["**/*.off"], auto_ingest: false }));
    const dataset = await createDataset(org.client, "ingestable-paths");
    await uploadFiles(org.client, dataset, { "a.log": "1", "d/b.log": "2", "d/skip.log": "3", "d/c.off": "4" });
    const [a, b] = await fileIds(org.client, dataset, ["a.log", "d/b.log"]);
    expect(await verdicts(dataset)).toEqual({ "a.log": false, "d/b.log": false, "d/skip.log": false, "d/c.off": false });

    // move_file: into the rule's paths and out again; the answer already says so.
    expect(await ok(org.client.put(`/v1/files/${a}/rename`, { association_id: dataset, new_path: "in/a.log" }))).toMatchObject({ relative_path: "in/a.log", ingestable: true });
    expect((await record(a!)).ingestable).toBe(true);
    // rename_directory: every file below it, excludes still applied.
    expect((await org.client.put(`/v1/datasets/${dataset}/directory/rename`, { old_path: "d", new_path: "in/d" })).status).toBe(200);
    expect(await verdicts(dataset)).toEqual({ "in/a.log": true, "in/d/b.log": true, "in/d/skip.log": false, "in/d/c.off": false });
    // move_nodes: a file moved out of the rule's paths is no longer ingestable, in the answer too.
    const out = (await ok(org.client.put(`/v1/datasets/${dataset}/directory`, { name: "out" }))).directory_id;
    const moved = await ok(org.client.put(`/v1/datasets/${dataset}/files/move`, { operations: [{ node_id: b, fs_type: "file", new_parent_id: out }] }));
    expect(moved).toEqual([expect.objectContaining({ file_id: b, relative_path: "out/b.log", ingestable: false })]);
    expect((await record(b!)).ingestable).toBe(false);

    // import_file: an imported file has no upload event; its path decides at once.
    const imported = async (path: string) => {
      const key = `${org.orgId}/imports/${++counter}/${path}`;
      await t.objectStore.putObject(key, Buffer.from("imported"));
      return ok(org.client.post("/v1/files/import", { dataset_id: dataset, relative_path: path, uri: `s3://${t.objectStore.location.bucket}/${key}`, size: 8 }));
    };
    expect(await imported("in/i.log")).toMatchObject({ relative_path: "in/i.log", ingestable: true });
    expect(await imported("elsewhere.log")).toMatchObject({ relative_path: "elsewhere.log", ingestable: false });

    // update_rule: its new patterns decide for the org's files already there.
    await ok(org.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, { include_patterns: ["**/*.log"] }));
    expect(await verdicts(dataset)).toEqual({ "in/a.log": true, "in/d/skip.log": false, "in/d/c.off": false, "out/b.log": true, "in/i.log": true, "elsewhere.log": true });
    // Turning auto_ingest off is as if the rule were not there.
    await ok(org.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, { auto_ingest: false }));
    expect(Object.values(await verdicts(dataset)).every((v) => v === false)).toBe(true);
    await ok(org.client.put(`/v1/ingestion-rules/id/${rule.rule_id}`, { auto_ingest: true }));
    expect((await record(b!)).ingestable).toBe(true);
    // create_rule: a new rule makes the files it matches ingestable.
    await ok(createRule(org.client, { include_patterns: ["**/*.off"] }));
    expect((await verdicts(dataset))["in/d/c.off"]).toBe(true);
    // delete_rule: what only that rule matched is no longer ingestable; an ingested file stays so.
    await ok(org.client.put(`/v1/files/record/${a}`, { ingestion_complete: true }));
    expect((await org.client.delete(`/v1/ingestion-rules/id/${rule.rule_id}`)).status).toBe(200);
    expect(await verdicts(dataset)).toEqual({ "in/a.log": true, "in/d/skip.log": false, "in/d/c.off": true, "out/b.log": false, "in/i.log": false, "elsewhere.log": false });

    // Another org's rules decide nothing here, and its caller sees none of these files.
    const everything = await ok(createRule(alice.client, { include_patterns: ["**"] }));
    expect((await record(b!)).ingestable).toBe(false);
    expect((await alice.client.get(`/v1/files/record/${b}`)).status).toBe(404);
    // Alice's later uploads must not all run it (the existing-files tests count files no rule ran on).
    await ok(alice.client.delete(`/v1/ingestion-rules/id/${everything.rule_id}`));
  });

  test("a rename refused for bad input writes nothing, the verdict included", async () => {
    const dataset = await createDataset(org.client, "ingestable-refused");
    await uploadFiles(org.client, dataset, { "kept/x.bin": "1", "y.bin": "2" });
    const [x] = await fileIds(org.client, dataset, ["kept/x.bin"]);
    // Created after the upload: the rule decides for the files already there, in its own request.
    await ok(createRule(org.client, { include_patterns: ["kept/*.bin"] }));
    expect((await record(x!)).ingestable).toBe(true);
    expectBadRequest(await org.client.put(`/v1/files/${x}/rename`, { association_id: dataset, new_path: "../x.bin" }), "new_path");
    expect((await org.client.put(`/v1/files/${x}/rename`, { association_id: dataset, new_path: "y.bin" })).status).toBe(409);
    expect(await record(x!)).toMatchObject({ relative_path: "kept/x.bin", ingestable: true });
  });
});

describe("existing files", () => {
  test("the report counts matching files no rule has run on; paths only for an org admin; ingest_existing_files runs them in the background", async () => {
    const dataset = await createDataset(alice.client, "before-rules");
    await uploadSettled(alice.client, dataset, { "old/1.dat": "1", "old/2.dat": "2", "old/skip.dat": "3", "old/n.txt": "4" });
    const rule = await ok(createRule(alice.client, { include_patterns: ["old/*.dat"], exclude_patterns: ["**/skip.dat"] }));
    const report = await ok(aliceAdmin.get(`/v1/ingestion-rules/id/${rule.rule_id}/existing-files`));
    expect({ ...report, sample_paths: [...report.sample_paths].sort() }).toEqual({ count: 2, count_is_lower_bound: false, sample_paths: ["old/1.dat", "old/2.dat"], complete_session_count: 0 });
    expect(await ok(aliceAdmin.get(`/v1/ingestion-rules/${rule.rule_id}/existing-files`))).toEqual(report);
    const member = await addMember(t, alice, "rules-member");
    expect(await ok(member.client.get(`/v1/ingestion-rules/id/${rule.rule_id}/existing-files`))).toEqual({ ...report, sample_paths: [] });

    expect(await ok(member.client.post(`/v1/ingestion-rules/id/${rule.rule_id}/existing-files`))).toEqual({ ...report, sample_paths: [] });
    const ids = await fileIds(alice.client, dataset, ["old/1.dat", "old/2.dat", "old/skip.dat"]);
    const runs = await waitFor("the background runs", async () => {
      const answer = (await ok(alice.client.post("/v1/ingestion-rules/runs/latest", { file_ids: ids }))).runs;
      return Object.keys(answer).length === 2 ? answer : undefined;
    });
    expect(Object.keys(runs).sort()).toEqual([ids[0], ids[1]].sort());
    expect(await ok(member.client.get(`/v1/ingestion-rules/id/${rule.rule_id}/existing-files`))).toEqual({ count: 0, count_is_lower_bound: false, sample_paths: [], complete_session_count: 0 });
  });

  test("complete_session_count: the org's complete sessions holding any of the report's files, each once", async () => {
    const dataset = await createDataset(alice.client, "sessions-before-rules");
    await uploadSettled(alice.client, dataset, { "s/a.dat": "1", "s/b.dat": "2", "s/c.dat": "3", "s/n.txt": "4" });
    const [a, b, c, n] = await fileIds(alice.client, dataset, ["s/a.dat", "s/b.dat", "s/c.dat", "s/n.txt"]);
    const session = async (files: (string | undefined)[], complete: boolean) => {
      const created = await ok(alice.client.post("/v1/sessions", { name: "recording" }));
      await ok(alice.client.post(`/v1/sessions/id/${created.session_id}/files`, { files: files.map((file_id) => ({ file_id })) }));
      if (complete) await ok(alice.client.post(`/v1/sessions/id/${created.session_id}/complete`));
    };
    await session([a, n], true); // counted: holds a matching file
    await session([b, c], true); // counted once, though it holds two
    await session([a], false); // in progress: not counted
    await session([n], true); // holds no file the rule matches
    const rule = await ok(createRule(alice.client, { include_patterns: ["s/*.dat"] }));
    expect(await ok(aliceAdmin.get(`/v1/ingestion-rules/id/${rule.rule_id}/existing-files`))).toMatchObject({ count: 3, complete_session_count: 2 });
    const none = await ok(createRule(alice.client, { include_patterns: ["s/*.none"] }));
    expect(await ok(aliceAdmin.get(`/v1/ingestion-rules/id/${none.rule_id}/existing-files`))).toMatchObject({ count: 0, complete_session_count: 0 });
  });

  test("ingest_existing_files refuses a rule that does not auto-ingest", async () => {
    const rule = await ok(createRule(alice.client, { auto_ingest: false }));
    expectBadRequest(await alice.client.post(`/v1/ingestion-rules/id/${rule.rule_id}/existing-files`), "rule_id");
  });
});

describe("defaults for new orgs", () => {
  test("an org's first upload gives it the for_new_orgs defaults, run by that upload; a default it deletes stays deleted", async () => {
    // The built-in action, as its owner org publishes it (the platform may have installed it already).
    const builtin = { "X-Service-Org-Id": MCAP_INGESTION_ACTION.owner };
    const made = await t.admin.post("/v1/actions", { name: MCAP_INGESTION_ACTION.name, uri: "registry.example.com/ingest-mcap:1" }, builtin);
    expect([200, 409]).toContain(made.status);
    await ok(t.admin.put(`/v1/actions/${MCAP_INGESTION_ACTION.name}/accessibility`, { accessibility: "action_hub" }, builtin));

    const org = await startOrg("fresh");
    expect((await ok(org.client.get("/v1/ingestion-rules"))).items).toEqual([]);
    const dataset = await createDataset(org.client, "first");
    await uploadFiles(org.client, dataset, { "logs/first.mcap": "not really an mcap" });
    const [file] = await fileIds(org.client, dataset, ["logs/first.mcap"]);
    const run = await runStarted(org.client, file!);
    const rules = (await ok(org.client.get("/v1/ingestion-rules"))).items;
    expect(rules).toEqual([
      expect.objectContaining({
        name: "MCAP files",
        include_patterns: ["**/*.mcap"],
        auto_ingest: true,
        created_by: org.userId,
        invocation: expect.objectContaining({ action: { name: MCAP_INGESTION_ACTION.name, owner: MCAP_INGESTION_ACTION.owner, digest: null } }),
      }),
    ]);
    expect(run.rule_id).toBe(rules[0].rule_id);
    expect((await ok(org.client.get("/v1/ingestion-rules/defaults"))).items[0].already_present).toBe(true);

    await ok(org.client.delete(`/v1/ingestion-rules/id/${rules[0].rule_id}`));
    await uploadSettled(org.client, dataset, { "second.mcap": "x" });
    expect((await ok(org.client.get("/v1/ingestion-rules"))).items.map((r: { name: string }) => r.name)).toEqual(["probe"]);
  });
});

/** An org of its own (rules of one test do not match another's files), with the `ingest` action. */
async function startOrg(name: string): Promise<TestTenant> {
  const tenant = await createTenant(t, unique(name));
  await ok(tenant.client.post("/v1/actions", { name: "ingest", uri: "registry.example.com/ingest:1", parameters: [{ name: "mode", default: "full" }] }));
  return tenant;
}

/** Waits until a file's latest run has started its invocation. */
async function runStarted(client: ApiClient, fileId: string): Promise<any> {
  return waitFor("the run's invocation", async () => {
    const run = (await ok(client.post("/v1/ingestion-rules/runs/latest", { file_ids: [fileId] }))).runs[fileId];
    return run?.invocation_id ? run : undefined;
  });
}

const probed = new Set<string>();

/**
 * Uploads files and waits until the compute service has handled their upload events, so that a
 * rule created next cannot fire for them: a second upload of a probe file (a rule of its own takes
 * `*.probe`) comes after them on the same association's event stream, so its run means theirs
 * were handled.
 */
async function uploadSettled(client: ApiClient, dataset: string, files: Record<string, string>): Promise<void> {
  const org = (await ok(client.get(`/v1/datasets/${dataset}`))).org_id as string;
  if (!probed.has(org)) {
    await ok(client.post("/v1/ingestion-rules", { name: "probe", include_patterns: ["*.probe"], invocation }));
    probed.add(org);
  }
  await uploadFiles(client, dataset, files);
  const probe = `settle-${++counter}.probe`;
  await uploadFiles(client, dataset, { [probe]: "p" });
  const [fileId] = await fileIds(client, dataset, [probe]);
  await runStarted(client, fileId!);
}

async function fileIds(client: ApiClient, dataset: string, paths: string[]): Promise<string[]> {
  return Promise.all(paths.map(async (path) => (await ok(client.get(`/v1/files/record/path/${encodeURIComponent(path)}/association/${dataset}`))).file_id as string));
}
