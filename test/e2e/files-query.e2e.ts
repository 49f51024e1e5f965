import { Client } from "pg";
import {
  createDataset,
  createTenant,
  expectBadRequest,
  startTestPlatform,
  uploadFiles,
  type ApiClient,
  type ApiResponse,
  type TestPlatform,
  type TestTenant,
} from "@hangar/test-harness";

// query_files (POST /v1/files/query, QuerySpecification body, next page via body `after`) and
// count_files (POST /v1/files/query/count, same body, an integer): the org-wide file search over
// file fields, metadata, tags and the fields of each file's dataset (`dataset.`).
// Each describe block has a tenant of its own, so counts and orders are exact.

let t: TestPlatform;
/** Another org holding look-alikes of the fixtures; they must never show up. */
let bob: TestTenant;
let db: Client;

beforeAll(async () => {
  t = await startTestPlatform();
  db = new Client({ connectionString: t.databaseUrl });
  await db.connect();
  bob = await createTenant(t, "bob");
  const dataset = await postOk(bob.client, "/v1/datasets", { name: "alpha-run", metadata: { site: "lab-north", vehicle: { id: "v1" } }, tags: ["outdoor"] });
  const [file] = await uploadInOrder(bob.client, dataset.dataset_id, [["logs/run1.csv", "a,b\n1,2\n"], ["notes.txt", "n"]]);
  await putOk(bob.client, `/v1/files/record/${file!.file_id}`, { metadata_changeset: { put_fields: { robot: "r1", quality: 0.9 }, put_tags: ["raw"] } });
});
afterAll(async () => {
  await db?.end();
  await t?.close();
});

interface Page {
  items: any[];
  next_token: string | null;
  total_count: number | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cond = (field: string, comparator: string, value?: unknown) => (value === undefined ? { field, comparator } : { field, comparator, value });

async function postOk(client: ApiClient, path: string, body: unknown): Promise<any> {
  const res = await client.post(path, body);
  expect(res.status).toBe(200);
  return res.body.data;
}

async function putOk(client: ApiClient, path: string, body: unknown): Promise<any> {
  const res = await client.put(path, body);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Uploads files one transaction at a time, a few milliseconds apart so `created` orders them; returns their records. */
async function uploadInOrder(client: ApiClient, datasetId: string, files: [string, string][]): Promise<any[]> {
  const records = [];
  for (const [path, body] of files) {
    await uploadFiles(client, datasetId, { [path]: body });
    const res = await client.get(`/v1/files/record/path/${encodeURIComponent(path)}/association/${datasetId}`);
    expect(res.status).toBe(200);
    records.push(res.body.data);
    await sleep(3);
  }
  return records;
}

function query(client: ApiClient, spec: unknown): Promise<ApiResponse> {
  return client.post("/v1/files/query", spec);
}

function count(client: ApiClient, spec: unknown): Promise<ApiResponse> {
  return client.post("/v1/files/query/count", spec);
}

async function page(client: ApiClient, spec: Record<string, unknown>): Promise<Page> {
  const res = await query(client, spec);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body.data).sort()).toEqual(["items", "next_token", "total_count"]);
  return res.body.data;
}

async function countOf(client: ApiClient, spec: Record<string, unknown>): Promise<number> {
  const res = await count(client, spec);
  expect(res.status).toBe(200);
  expect(typeof res.body.data).toBe("number");
  return res.body.data;
}

/** Follows next_token (as body `after`) until it is null; returns every page. */
async function allPages(client: ApiClient, spec: Record<string, unknown>): Promise<Page[]> {
  const pages = [await page(client, spec)];
  while (pages[pages.length - 1]!.next_token !== null) {
    expect(pages.length).toBeLessThan(50);
    pages.push(await page(client, { ...spec, after: pages[pages.length - 1]!.next_token }));
  }
  return pages;
}

describe("query_files and count_files conditions", () => {
  let finder: TestTenant;
  let alpha: any;
  let beta: any;
  /** f1..f5 in upload order. */
  let files: any[];
  const labels = new Map<string, string>();

  beforeAll(async () => {
    finder = await createTenant(t, "finder");
    alpha = await postOk(finder.client, "/v1/datasets", {
      name: "alpha-run",
      description: "first",
      device_id: "robot-a",
      metadata: { site: "lab-north", vehicle: { id: "v1" } },
      tags: ["outdoor"],
    });
    await sleep(3);
    beta = await postOk(finder.client, "/v1/datasets", { name: "beta-run", metadata: { site: "field" } });
    files = [
      ...(await uploadInOrder(finder.client, alpha.dataset_id, [
        ["logs/run1.csv", "a,b\n1,2\n"],
        ["logs/run2.csv", "a,b\n1,2\n3,4\n"],
        ["images/cam_1.jpg", "jpg"],
      ])),
      ...(await uploadInOrder(finder.client, beta.dataset_id, [
        ["logs/run3.csv", "a,b\n1,2\n3,4\n5,6\n78"],
        ["notes.txt", "n"],
      ])),
    ];
    files.forEach((f, i) => labels.set(f.file_id, `f${i + 1}`));
    const update = (i: number, body: object) => putOk(finder.client, `/v1/files/record/${files[i].file_id}`, body);
    // f5 stays as uploaded (version 1, no metadata).
    files[0] = await update(0, { metadata_changeset: { put_fields: { robot: "r1", quality: 0.9, flags: ["x", "y"], calibrated: true }, put_tags: ["raw"] } });
    files[1] = await update(1, { metadata_changeset: { put_fields: { robot: "r2", quality: 0.4, calibrated: false }, put_tags: ["raw", "reviewed"] }, ingestion_complete: true });
    files[2] = await update(2, { description: "front camera", metadata_changeset: { put_fields: { robot: "r1", "camera.model": "zed" } } });
    files[3] = await update(3, { device_id: "robot-3", metadata_changeset: { put_fields: { robot: "r3", quality: 0.7 }, put_tags: ["reviewed"] } });
    // A pending file (upload not completed) is not searchable.
    await uploadFiles(finder.client, beta.dataset_id, { "logs/pending.csv": "p" }, { complete: false });
  });

  /** The labels of the files matching `condition`, oldest first; the page must be complete and count_files agree. */
  async function matching(condition: unknown): Promise<string[]> {
    const result = await page(finder.client, { condition, sort_by: "created", sort_direction: "ASC" });
    expect(result.next_token).toBeNull();
    expect(result.total_count).toBe(result.items.length);
    expect(await countOf(finder.client, { condition })).toBe(result.total_count);
    return result.items.map((f) => labels.get(f.file_id) ?? `foreign:${f.file_id}`);
  }

  test("items are whole File records, equal to what get_file returns", async () => {
    const result = await page(finder.client, { condition: cond("file_id", "EQUALS", files[0].file_id) });
    expect(result.items).toEqual([files[0]]);
    expect((await finder.client.get(`/v1/files/record/${files[0].file_id}`)).body.data).toEqual(result.items[0]);
    expect(result.items[0]).toMatchObject({ metadata: { robot: "r1", calibrated: true }, tags: ["raw"], fs_type: "file", status: "available" });
  });

  test("no condition, or a null one, matches every available file of the org, and no directory or pending file", async () => {
    expect(await matching(undefined)).toEqual(["f1", "f2", "f3", "f4", "f5"]);
    expect(await matching(null)).toEqual(["f1", "f2", "f3", "f4", "f5"]);
  });

  test.each<[string, () => unknown, string[]]>([
    ["file_id EQUALS", () => cond("file_id", "EQUALS", files[2].file_id), ["f3"]],
    ["relative_path EQUALS", () => cond("relative_path", "EQUALS", "logs/run1.csv"), ["f1"]],
    ["path (alias) LIKE a suffix", () => cond("path", "LIKE", "%.csv"), ["f1", "f2", "f4"]],
    ["relative_path BEGINS_WITH", () => cond("relative_path", "BEGINS_WITH", "logs/"), ["f1", "f2", "f4"]],
    ["relative_path CONTAINS (`_` is a literal)", () => cond("relative_path", "CONTAINS", "m_1"), ["f3"]],
    ["name EQUALS", () => cond("name", "EQUALS", "notes.txt"), ["f5"]],
    ["name NOT_LIKE", () => cond("name", "NOT_LIKE", "%.csv"), ["f3", "f5"]],
    ["size GREATER_THAN", () => cond("size", "GREATER_THAN", 8), ["f2", "f4"]],
    ["size LESS_THAN_OR_EQUAL a decimal string", () => cond("size", "LESS_THAN_OR_EQUAL", "3"), ["f3", "f5"]],
    ["association_id EQUALS", () => cond("association_id", "EQUALS", beta.dataset_id), ["f4", "f5"]],
    ["dataset_id (alias of association_id) EQUALS", () => cond("dataset_id", "EQUALS", alpha.dataset_id), ["f1", "f2", "f3"]],
    ["created GREATER_THAN an ISO date-time", () => cond("created", "GREATER_THAN", files[2].created), ["f4", "f5"]],
    ["created_by EQUALS", () => cond("created_by", "EQUALS", finder.userId), ["f1", "f2", "f3", "f4", "f5"]],
    ["modified_by NOT_EQUALS", () => cond("modified_by", "NOT_EQUALS", finder.userId), []],
    ["description IS_NOT_NULL", () => cond("description", "IS_NOT_NULL"), ["f3"]],
    ["device_id EQUALS", () => cond("device_id", "EQUALS", "robot-3"), ["f4"]],
    ["origination EQUALS", () => cond("origination", "EQUALS", "test"), ["f1", "f2", "f3", "f4", "f5"]],
    ["ingestion_status EQUALS", () => cond("ingestion_status", "EQUALS", "ingested"), ["f2"]],
    ["status EQUALS available", () => cond("status", "EQUALS", "available"), ["f1", "f2", "f3", "f4", "f5"]],
    ["version EQUALS", () => cond("version", "EQUALS", 1), ["f5"]],
    ["a `file.` qualified column", () => cond("file.name", "EQUALS", "notes.txt"), ["f5"]],
  ])("on a file column: %s", async (_, condition, expected) => {
    expect(await matching(condition())).toEqual(expected);
  });

  test.each<[string, unknown, string[]]>([
    ["CONTAINS is membership", cond("tags", "CONTAINS", "raw"), ["f1", "f2"]],
    ["EQUALS is membership too", cond("tags", "EQUALS", "reviewed"), ["f2", "f4"]],
    ["NOT_CONTAINS", cond("tags", "NOT_CONTAINS", "raw"), ["f3", "f4", "f5"]],
    ["CONTAINS matches whole tags only", cond("tags", "CONTAINS", "rev"), []],
    ["a `file.` qualified field", cond("file.tags", "CONTAINS", "reviewed"), ["f2", "f4"]],
  ])("on tags: %s", async (_, condition, expected) => {
    expect(await matching(condition)).toEqual(expected);
  });

  test.each<[string, unknown, string[]]>([
    ["EQUALS a string", cond("metadata.robot", "EQUALS", "r1"), ["f1", "f3"]],
    ["EQUALS a string at a nested path", cond("metadata.camera.model", "EQUALS", "zed"), ["f3"]],
    ["EQUALS with a `file.` prefix", cond("file.metadata.robot", "EQUALS", "r1"), ["f1", "f3"]],
    ["NOT_EQUALS (a missing path is not equal)", cond("metadata.robot", "NOT_EQUALS", "r1"), ["f2", "f4", "f5"]],
    ["EQUALS a number", cond("metadata.quality", "EQUALS", 0.4), ["f2"]],
    ["EQUALS a number never matches a string", cond("metadata.robot", "EQUALS", 1), []],
    ["EQUALS true", cond("metadata.calibrated", "EQUALS", true), ["f1"]],
    ["EQUALS false", cond("metadata.calibrated", "EQUALS", false), ["f2"]],
    ["EQUALS a scalar never matches a list holding it", cond("metadata.flags", "EQUALS", "x"), []],
    ["EQUALS a scalar never matches an object", cond("metadata.camera", "EQUALS", "zed"), []],
    ["a numeric segment indexes a list", cond("metadata.flags.1", "EQUALS", "y"), ["f1"]],
    ["GREATER_THAN", cond("metadata.quality", "GREATER_THAN", 0.5), ["f1", "f4"]],
    ["LESS_THAN_OR_EQUAL", cond("metadata.quality", "LESS_THAN_OR_EQUAL", 0.7), ["f2", "f4"]],
    ["CONTAINS is membership in a list", cond("metadata.flags", "CONTAINS", "x"), ["f1"]],
    ["CONTAINS a substring of a string", cond("metadata.camera.model", "CONTAINS", "e"), ["f3"]],
    ["BEGINS_WITH", cond("metadata.robot", "BEGINS_WITH", "r"), ["f1", "f2", "f3", "f4"]],
    ["LIKE", cond("metadata.robot", "LIKE", "%3"), ["f4"]],
    ["EXISTS", cond("metadata.quality", "EXISTS"), ["f1", "f2", "f4"]],
    ["NOT_EXISTS", cond("metadata.robot", "NOT_EXISTS"), ["f5"]],
    ["IS_NULL (null or missing)", cond("metadata.quality", "IS_NULL"), ["f3", "f5"]],
  ])("on metadata: %s", async (_, condition, expected) => {
    expect(await matching(condition)).toEqual(expected);
  });

  test.each<[string, () => unknown, string[]]>([
    ["dataset.name EQUALS", () => cond("dataset.name", "EQUALS", "alpha-run"), ["f1", "f2", "f3"]],
    ["dataset.name BEGINS_WITH", () => cond("dataset.name", "BEGINS_WITH", "beta"), ["f4", "f5"]],
    ["dataset.metadata EQUALS", () => cond("dataset.metadata.site", "EQUALS", "field"), ["f4", "f5"]],
    ["dataset.metadata at a nested path", () => cond("dataset.metadata.vehicle.id", "EQUALS", "v1"), ["f1", "f2", "f3"]],
    ["dataset.metadata NOT_EQUALS", () => cond("dataset.metadata.site", "NOT_EQUALS", "field"), ["f1", "f2", "f3"]],
    ["dataset.metadata BEGINS_WITH", () => cond("dataset.metadata.site", "BEGINS_WITH", "lab"), ["f1", "f2", "f3"]],
    ["dataset.tags CONTAINS", () => cond("dataset.tags", "CONTAINS", "outdoor"), ["f1", "f2", "f3"]],
    ["dataset.description EQUALS", () => cond("dataset.description", "EQUALS", "first"), ["f1", "f2", "f3"]],
    ["dataset.device_id EQUALS", () => cond("dataset.device_id", "EQUALS", "robot-a"), ["f1", "f2", "f3"]],
    ["dataset.dataset_id EQUALS", () => cond("dataset.dataset_id", "EQUALS", beta.dataset_id), ["f4", "f5"]],
    ["dataset.created GREATER_THAN", () => cond("dataset.created", "GREATER_THAN", alpha.created), ["f4", "f5"]],
    ["`file.dataset.` chains the qualifiers", () => cond("file.dataset.name", "EQUALS", "beta-run"), ["f4", "f5"]],
  ])("on the file's dataset: %s", async (_, condition, expected) => {
    expect(await matching(condition())).toEqual(expected);
  });

  test.each<[string, unknown, string[]]>([
    ["AND", { operator: "AND", conditions: [cond("dataset.name", "EQUALS", "alpha-run"), cond("tags", "CONTAINS", "raw")] }, ["f1", "f2"]],
    ["OR", { operator: "OR", conditions: [cond("metadata.robot", "EQUALS", "r3"), cond("name", "EQUALS", "notes.txt")] }, ["f4", "f5"]],
    ["NOT of one condition", { operator: "NOT", conditions: [cond("metadata.robot", "EQUALS", "r1")] }, ["f2", "f4", "f5"]],
    ["NOT means none of its conditions match", { operator: "NOT", conditions: [cond("path", "LIKE", "%.csv"), cond("tags", "CONTAINS", "raw")] }, ["f3", "f5"]],
    ["NOT on a dataset field", { operator: "NOT", conditions: [cond("dataset.metadata.site", "EQUALS", "field")] }, ["f1", "f2", "f3"]],
    [
      "OR of an AND and a NOT",
      {
        operator: "OR",
        conditions: [
          { operator: "AND", conditions: [cond("dataset.metadata.site", "EQUALS", "field"), cond("metadata.quality", "GREATER_THAN", 0.5)] },
          { operator: "NOT", conditions: [cond("metadata.robot", "EXISTS")] },
        ],
      },
      ["f4", "f5"],
    ],
    [
      "AND of an OR of metadata equalities and a NOT of an OR",
      {
        operator: "AND",
        conditions: [
          { operator: "OR", conditions: [cond("metadata.robot", "EQUALS", "r1"), cond("metadata.robot", "EQUALS", "r2")] },
          { operator: "NOT", conditions: [{ operator: "OR", conditions: [cond("name", "EQUALS", "run2.csv"), cond("description", "IS_NOT_NULL")] }] },
        ],
      },
      ["f1"],
    ],
  ])("groups: %s", async (_, condition, expected) => {
    expect(await matching(condition)).toEqual(expected);
  });

  test("another org's look-alike files never appear and never count", async () => {
    expect(await matching(cond("metadata.robot", "EQUALS", "r1"))).toEqual(["f1", "f3"]);
    expect(await matching(cond("dataset.name", "EQUALS", "alpha-run"))).toEqual(["f1", "f2", "f3"]);
    expect((await page(finder.client, {})).total_count).toBe(5);
    expect(await countOf(finder.client, {})).toBe(5);
  });

  test("unknown body fields are ignored, in the body and in a condition", async () => {
    const res = await query(finder.client, { condition: { ...cond("name", "EQUALS", "notes.txt"), note: "x" }, max_results: null, content_mode: "record_only" });
    expect(res.status).toBe(200);
    expect(res.body.data.items.map((f: any) => labels.get(f.file_id))).toEqual(["f5"]);
  });

  test.each<[string, Record<string, unknown>, string[]]>([
    ["the default, created DESC", {}, ["f5", "f4", "f3", "f2", "f1"]],
    ["created ASC", { sort_by: "created", sort_direction: "ASC" }, ["f1", "f2", "f3", "f4", "f5"]],
    ["name ASC", { sort_by: "name", sort_direction: "asc" }, ["f3", "f5", "f1", "f2", "f4"]],
    ["relative_path DESC", { sort_by: "relative_path", sort_direction: "DESC" }, ["f5", "f4", "f2", "f1", "f3"]],
    ["path (alias) ASC", { sort_by: "path", sort_direction: "ASC" }, ["f3", "f1", "f2", "f4", "f5"]],
    ["size DESC", { sort_by: "size" }, ["f4", "f2", "f1", "f3", "f5"]],
    ["modified ASC (the order of the updates; f5 was never updated)", { sort_by: "modified", sort_direction: "ASC" }, ["f5", "f1", "f2", "f3", "f4"]],
    ["explicit nulls mean the defaults", { sort_by: null, sort_direction: null, limit: null, after: null, condition: null }, ["f5", "f4", "f3", "f2", "f1"]],
  ])("sort by %s", async (_, spec, expected) => {
    const result = await page(finder.client, spec);
    expect(result.items.map((f) => labels.get(f.file_id))).toEqual(expected);
  });

  test("sort by a dataset field", async () => {
    const result = await page(finder.client, { sort_by: "dataset.name", sort_direction: "ASC" });
    const sorted = result.items.map((f) => labels.get(f.file_id)!);
    expect(sorted.slice(0, 3).sort()).toEqual(["f1", "f2", "f3"]);
    expect(sorted.slice(3).sort()).toEqual(["f4", "f5"]);
  });

  test("sort by a metadata path puts missing values last, in either direction", async () => {
    const asc = (await page(finder.client, { sort_by: "metadata.quality", sort_direction: "ASC" })).items.map((f) => labels.get(f.file_id));
    expect(asc.slice(0, 3)).toEqual(["f2", "f4", "f1"]);
    expect(asc.slice(3).sort()).toEqual(["f3", "f5"]);
    const desc = (await page(finder.client, { sort_by: "metadata.quality", sort_direction: "DESC" })).items.map((f) => labels.get(f.file_id));
    expect(desc.slice(0, 3)).toEqual(["f1", "f4", "f2"]);
  });
});

describe("query_files paging", () => {
  let pager: TestTenant;
  /** 24 files from one transaction (so many share `created`) and 3 more in another dataset. */
  let ids: string[];

  beforeAll(async () => {
    pager = await createTenant(t, "pager");
    const first = await createDataset(pager.client, "bulk");
    const second = await createDataset(pager.client, "extra");
    const bulk = Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`dir${i % 3}/file_${String(i).padStart(2, "0")}.bin`, "x".repeat(i + 1)]));
    await uploadFiles(pager.client, first, bulk);
    await uploadFiles(pager.client, second, { "a.txt": "a", "b.txt": "bb", "c.txt": "ccc" });
    ids = (await page(pager.client, {})).items.map((f) => f.file_id);
    expect(ids).toHaveLength(27);
  });

  test("a small limit pages through every file exactly once, in the order of one big page, until next_token is null", async () => {
    const pages = await allPages(pager.client, { limit: 4 });
    expect(pages).toHaveLength(7);
    expect(pages.map((p) => p.items.length)).toEqual([4, 4, 4, 4, 4, 4, 3]);
    const paged = pages.flatMap((p) => p.items.map((f) => f.file_id));
    expect(new Set(paged).size).toBe(27);
    expect(paged).toEqual(ids);
    expect(pages.every((p) => p.total_count === 27)).toBe(true);
    expect(pages.map((p) => typeof p.next_token)).toEqual([...Array(6).fill("string"), "object"]);
  });

  test("paging keeps a condition and a sort across pages; total_count counts the matches", async () => {
    const spec = { condition: cond("relative_path", "BEGINS_WITH", "dir1/"), sort_by: "size", sort_direction: "ASC", limit: 3 };
    const pages = await allPages(pager.client, spec);
    expect(pages.flatMap((p) => p.items.map((f) => f.size))).toEqual([2, 5, 8, 11, 14, 17, 20, 23]);
    expect(pages.map((p) => p.total_count)).toEqual([8, 8, 8]);
    expect(await countOf(pager.client, spec)).toBe(8);
  });

  test("a limit that ends exactly at the last match leaves no next page", async () => {
    const pages = await allPages(pager.client, { condition: cond("name", "LIKE", "%.txt"), limit: 3 });
    expect(pages).toHaveLength(1);
    expect(pages[0]!.items).toHaveLength(3);
  });

  test("a sort on a metadata path that no file has still pages stably (by file id)", async () => {
    const spec = { sort_by: "metadata.none", sort_direction: "ASC" };
    const pages = await allPages(pager.client, { ...spec, limit: 5 });
    const paged = pages.flatMap((p) => p.items.map((f) => f.file_id));
    expect(new Set(paged).size).toBe(27);
    expect(paged).toEqual((await page(pager.client, spec)).items.map((f) => f.file_id));
  });

  test("the same page asked twice is the same", async () => {
    const first = await page(pager.client, { limit: 5 });
    const second = await page(pager.client, { limit: 5, after: first.next_token });
    expect(await page(pager.client, { limit: 5, after: first.next_token })).toEqual(second);
  });

  test('`after: "None"` (a Python client\'s first page) is the first page', async () => {
    expect(await page(pager.client, { limit: 2, after: "None" })).toEqual(await page(pager.client, { limit: 2 }));
  });

  test("a limit above the maximum is served as the maximum", async () => {
    expect((await page(pager.client, { limit: 100000 })).items).toHaveLength(27);
  });
});

describe("total_count above the count cap", () => {
  let crowd: TestTenant;

  beforeAll(async () => {
    crowd = await createTenant(t, "crowd");
    const datasetId = await createDataset(crowd.client, "crowd");
    await db.query(
      `insert into data.fs_nodes (node_id, org_id, association_id, association_type, fs_type, name, relative_path, status, size, uri, metadata, tags, created, created_by, modified, modified_by)
       select 'fl_crowd' || i, $1, $2, 'dataset', 'file', 'f' || i || '.bin', 'many/f' || i || '.bin', 'available', i, 's3://b/k' || i,
              case when i % 100 = 0 then '{"rare": true}'::jsonb else '{}'::jsonb end, '{}', now() - i * interval '1 second', 'x', now(), 'x'
       from generate_series(1, 1050) i`,
      [crowd.orgId, datasetId],
    );
  });

  test("is null past 1,000 matches (a full page at the largest limit) while paging goes on; count_files stays exact", async () => {
    const first = await page(crowd.client, { limit: 100 });
    expect(first.total_count).toBeNull();
    expect(first.items).toHaveLength(100);
    expect(first.items[0].file_id).toBe("fl_crowd1");
    expect(typeof first.next_token).toBe("string");
    const second = await page(crowd.client, { limit: 100, after: first.next_token });
    expect(second.items[0].file_id).toBe("fl_crowd101");
    expect(await countOf(crowd.client, {})).toBe(1050);
    const full = await page(crowd.client, {});
    expect(full.items).toHaveLength(1000);
    expect(full.total_count).toBeNull();
    const rest = await page(crowd.client, { after: full.next_token });
    expect(rest.items.map((f) => f.file_id)).toEqual(Array.from({ length: 50 }, (_, i) => `fl_crowd${1001 + i}`));
    expect(rest.next_token).toBeNull();
  });

  test("is exact at 1,000 matches and below", async () => {
    const condition = cond("size", "LESS_THAN_OR_EQUAL", 1000);
    expect((await page(crowd.client, { condition, limit: 10 })).total_count).toBe(1000);
    const rare = await page(crowd.client, { condition: cond("metadata.rare", "EQUALS", true), sort_by: "size", sort_direction: "ASC" });
    expect(rare.total_count).toBe(10);
    expect(rare.items.map((f) => f.size)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(await countOf(crowd.client, { condition: cond("metadata.rare", "EQUALS", true) })).toBe(10);
  });

  test("sorts and pages the same whether the matches are few or many", async () => {
    const many = await allPages(crowd.client, { condition: cond("size", "GREATER_THAN", 20), sort_by: "size", sort_direction: "ASC", limit: 400 });
    expect(many.map((p) => p.total_count)).toEqual([null, null, null]);
    expect(many.flatMap((p) => p.items.map((f) => f.size))).toEqual(Array.from({ length: 1030 }, (_, i) => 21 + i));
    const few = await allPages(crowd.client, { condition: cond("size", "GREATER_THAN", 1040), sort_by: "size", sort_direction: "ASC", limit: 4 });
    expect(few.flatMap((p) => p.items.map((f) => f.size))).toEqual([1041, 1042, 1043, 1044, 1045, 1046, 1047, 1048, 1049, 1050]);
    expect(few.map((p) => p.total_count)).toEqual([10, 10, 10]);
  });
});

describe("query_files across orgs", () => {
  test("another org's files are absent from every page and from both counts", async () => {
    const solo = await createTenant(t, "solo");
    const datasetId = await createDataset(solo.client, "alpha-run");
    const mine = await uploadInOrder(solo.client, datasetId, [["logs/run1.csv", "1"], ["notes.txt", "2"]]);
    const pages = await allPages(solo.client, { limit: 1 });
    expect(pages.flatMap((p) => p.items.map((f) => f.file_id))).toEqual([mine[1].file_id, mine[0].file_id]);
    expect(pages.map((p) => p.total_count)).toEqual([2, 2]);
    expect(await countOf(solo.client, { condition: cond("relative_path", "EQUALS", "logs/run1.csv") })).toBe(1);
  });

  test("naming another org in X-Service-Resource-Owner-Id finds nothing for a non-member", async () => {
    const solo = await createTenant(t, "solo2");
    const datasetId = await createDataset(solo.client, "x");
    await uploadFiles(solo.client, datasetId, { "x.txt": "x" });
    const res = await bob.client.post("/v1/files/query", {}, { "X-Service-Resource-Owner-Id": solo.orgId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { items: [], next_token: null, total_count: 0 } });
    const counted = await bob.client.post("/v1/files/query/count", {}, { "X-Service-Resource-Owner-Id": solo.orgId });
    expect(counted.body).toEqual({ data: 0 });
  });

  test("files whose ids hold quotes or backslashes are found and read back", async () => {
    const odd = await createTenant(t, "odd");
    const datasetId = await createDataset(odd.client, "odd");
    const ids = ['fl_q"uote', "fl_back\\slash", "fl_com,ma", "fl_{brace}"];
    for (const [i, id] of ids.entries()) {
      await db.query(
        `insert into data.fs_nodes (node_id, org_id, association_id, association_type, fs_type, name, relative_path, status, size, created, created_by, modified, modified_by)
         values ($1, $2, $3, 'dataset', 'file', $4, $4, 'available', $5::int, now() - $5::int * interval '1 second', 'x', now(), 'x')`,
        [id, odd.orgId, datasetId, `f${i}.bin`, i],
      );
    }
    const result = await page(odd.client, { condition: cond("name", "LIKE", "f%") });
    expect(result.items.map((f) => f.file_id)).toEqual(ids);
    expect(result.total_count).toBe(4);
  });

  test("an org without files gets an empty page and a count of 0", async () => {
    const empty = await createTenant(t, "empty");
    expect(await page(empty.client, {})).toEqual({ items: [], next_token: null, total_count: 0 });
    expect(await count(empty.client, {})).toMatchObject({ status: 200, body: { data: 0 } });
  });
});

describe("query_files and count_files refuse bad input with a 400 naming the field", () => {
  let critic: TestTenant;

  beforeAll(async () => {
    critic = await createTenant(t, "critic");
    await uploadFiles(critic.client, await createDataset(critic.client, "only"), { "only.txt": "o" });
  });

  const ok = cond("metadata.robot", "EQUALS", "r1");

  const badConditions: [string, unknown, string][] = [
    ["an unknown comparator", { field: "name", comparator: "EQ", value: "x" }, "condition.comparator"],
    ["an unknown comparator in a group", { operator: "AND", conditions: [ok, { field: "name", comparator: "ABOUT", value: "x" }] }, "condition.conditions[1].comparator"],
    ["an empty condition group", { operator: "AND", conditions: [] }, "condition.conditions"],
    ["a nested empty group", { operator: "OR", conditions: [{ operator: "NOT", conditions: [] }] }, "condition.conditions[0].conditions"],
    ["an unknown operator", { operator: "XOR", conditions: [ok] }, "condition.operator"],
    ["an unknown field", cond("colour", "EQUALS", "red"), "condition.field"],
    ["an unknown dataset field", cond("dataset.colour", "EQUALS", "red"), "condition.field"],
    ["a bare `dataset` qualifier", cond("dataset", "EXISTS"), "condition.field"],
    ["an unknown field after a metadata equality", { operator: "AND", conditions: [ok, { operator: "OR", conditions: [cond("colour", "EXISTS")] }] }, "condition.conditions[1].conditions[0].field"],
    ["a field that is not a dot path", cond("name; drop table fs_nodes", "EXISTS"), "condition.field"],
    ["a missing field", { comparator: "EXISTS" }, "condition.field"],
    ["a missing value", { field: "name", comparator: "EQUALS" }, "condition.value"],
    ["a list value", cond("tags", "CONTAINS", ["a"]), "condition.value"],
    ["an object value on metadata", cond("metadata.robot", "EQUALS", { a: 1 }), "condition.value"],
    ["a comparator that does not apply to tags", cond("tags", "BEGINS_WITH", "a"), "condition.comparator"],
    ["a value that is not a date-time for created", cond("created", "GREATER_THAN", "yesterday"), "condition.value"],
    ["a value that is not a number for size", cond("size", "GREATER_THAN", "big"), "condition.value"],
    ["a condition that is a string", "name = 'only'", "condition"],
    ["a condition with both group and condition keys", { operator: "AND", field: "name" }, "condition"],
  ];

  test.each(badConditions)("query_files: %s", async (_, condition, field) => {
    expectBadRequest(await query(critic.client, { condition }), field);
  });

  test.each(badConditions)("count_files: %s", async (_, condition, field) => {
    expectBadRequest(await count(critic.client, { condition }), field);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["limit 0", { limit: 0 }, "limit"],
    ["a negative limit", { limit: -5 }, "limit"],
    ["an unknown sort_direction", { sort_direction: "UP" }, "sort_direction"],
    ["an unknown sort_by field", { sort_by: "colour" }, "sort_by"],
    ["an unknown sort_by dataset field", { sort_by: "dataset.colour" }, "sort_by"],
    ["a sort_by that is not a dot path", { sort_by: "name desc" }, "sort_by"],
    ["an after that is not a page token", { after: "not-a-token" }, "after"],
    ["an after with a negative offset", { after: Buffer.from('{"o":-1,"f":"x"}').toString("base64url") }, "after"],
  ])("query_files: %s", async (_, spec, field) => {
    expectBadRequest(await query(critic.client, spec), field);
  });

  test("a next_token from a different query is a 400 naming `after`", async () => {
    const pager = await createTenant(t, "critic2");
    await uploadFiles(pager.client, await createDataset(pager.client, "two"), { "a.txt": "a", "b.txt": "b" });
    const first = await page(pager.client, { limit: 1 });
    expect(first.next_token).not.toBeNull();
    expectBadRequest(await query(pager.client, { limit: 1, after: first.next_token, condition: cond("name", "EXISTS") }), "after");
    expectBadRequest(await query(pager.client, { limit: 1, after: first.next_token, sort_direction: "ASC" }), "after");
    expectBadRequest(await query(pager.client, { limit: 1, after: first.next_token, sort_by: "name" }), "after");
    // query_datasets tokens are bound to their own resource.
    await postOk(pager.client, "/v1/datasets", { name: "three" });
    const datasets = await postOk(pager.client, "/v1/datasets/query", { limit: 1 });
    expectBadRequest(await query(pager.client, { limit: 1, after: datasets.next_token }), "after");
  });

  test("a limit that is not an integer is a 400 naming `limit`", async () => {
    for (const limit of [1.5, "ten"]) {
      const res = await query(critic.client, { limit });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/\blimit: /);
    }
  });

  test("count_files ignores paging and sorting: limit, after, sort_by, sort_direction", async () => {
    expect(await countOf(critic.client, { limit: 0, after: "not-a-token", sort_by: "colour", sort_direction: "UP" })).toBe(1);
  });

  test("a body that is not a JSON object is a 400", async () => {
    for (const path of ["/v1/files/query", "/v1/files/query/count"]) {
      const res = await critic.client.raw("POST", path, "[]");
      expect(res.status).toBe(400);
      expect(res.body.error.error_code).toBe(400);
    }
  });
});
