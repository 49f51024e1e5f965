import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  compileKeysetOrder,
  createLogger,
  openDatabase,
  parseQueryText,
  rawSql,
  WALK_ROWS,
  type EntityManager,
  type Orm,
  type PageCursor,
} from "@hangar/shared";
import { createTestDatabase, nullabilityProblems, planProblems } from "@hangar/test-harness";
import { collectionCatalog } from "../domain/collection-search";
import { datasetCatalog, planDatasetSearch } from "../domain/dataset-search";
import { TOTAL_COUNT_CAP, fileColumns, planFileSearch } from "../domain/file-search";
import { fileSortCatalog } from "../domain/files";
import type { MetricValueSelection } from "../domain/metrics";
import { planOf } from "../domain/saved-queries";
import { DatasetStore } from "./dataset-store";
import { dataEntities } from "./entities";
import { fileEntities } from "./file-entities";
import { FileSearchStore } from "./file-search-store";
import { FileStore } from "./file-store";
import { MetricStore } from "./metric-store";
import { deviceColumns, eventColumns, messagePathColumns, sessionColumns, termCondition, topicColumns, type QueryTargetName } from "../domain/query-targets";
import { sessionCatalog } from "../domain/session-search";
import { QueryResultsStore } from "./query-results-store";
import { dataMigrations } from "./migrations";
import { TreeStore } from "./tree-store";

// Datasets arrive grouped in time, as real uploads do: dataset i and its files are created
// together, so "files of one dataset, newest first" is a thin slice of the (org, created) order.
const DATASETS = 5000;
const FILES_PER_DATASET = 40;
const ORG = "org_a";
const OLD_DATASETS = 100_000;
const BIG = ["fs_nodes", "datasets", "topics", "metric_values"];
// The files of one rig (`metadata.rig`; one dataset in 50 has it).
const RIG_FILES = (DATASETS / 50) * FILES_PER_DATASET;
// Topics of recordings (files) as an MCAP fleet has them: 20 channel names and 50 schemas.
const TOPICS = 100_000;

// Metric values of one metric, one per session, a second apart; the first NULL_TIME_SESSIONS have no
// time (sessions without files), which an ascending page reaches last.
const METRIC_VALUES = 100_000;
const NULL_TIME_SESSIONS = 150;
const METRIC = "mt_plans";
const METRIC_EPOCH_NS = 1_735_689_600_000_000_000n;
/** One dataset, the oldest, far larger than the rest: every newer file precedes its files in (org, created) order. */
const BIG_DATASET_FILES = 20_000;

let orm: Orm;
const problems: string[] = [];

beforeAll(async () => {
  orm = await openDatabase({
    url: await createTestDatabase(),
    schema: "data",
    entities: [...dataEntities, ...fileEntities],
    migrations: dataMigrations,
    logger: createLogger("test", "silent"),
  });
  await seed(orm.em.fork());
}, 120_000);

afterAll(() => orm.close());

/**
 * An entity manager whose every select is EXPLAIN ANALYZEd first; findings land in `problems`. An
 * exact count (query_dataset_files' total_count, which the API keeps exact) reads every match of
 * its one association by design, so it is left out.
 */
function explaining(slack?: number): EntityManager {
  const em = orm.em.fork();
  const execute = em.execute.bind(em);
  em.execute = (async (sql: string, params: unknown[] = []) => {
    if (/^\s*select/i.test(sql) && !/^\s*select count\(\*\) as total from fs_nodes f where/i.test(sql)) problems.push(...(await planProblems((q, p) => execute(q, p), { sql, params }, BIG, slack)));
    return execute(sql, params);
  }) as typeof em.execute;
  return em;
}

const spec = (condition: JsonValue | undefined, extra: { sortBy?: string; sortDirection?: string; after?: string } = {}) => ({
  ...(condition !== undefined ? { condition: fromJson(ValueSchema, condition) } : {}),
  limit: 100n,
  ...extra,
});

beforeEach(() => problems.splice(0));

// A keyset page trusts these declarations to leave out the null arm: a wrong one skips null rows.
test("the data service's catalogs declare exactly their tables' NOT NULL columns", async () => {
  const em = orm.em.fork();
  const found = await nullabilityProblems((q, p) => em.execute(q, p), "data", [
    { name: "datasets", catalog: datasetCatalog, tables: { d: "datasets" } },
    { name: "collections", catalog: collectionCatalog, tables: { c: "collections" } },
    { name: "sessions", catalog: sessionCatalog, tables: { s: "sessions" } },
    { name: "files", catalog: fileColumns, tables: { f: "fs_nodes" } },
    { name: "association files", catalog: fileSortCatalog, tables: { f: "fs_nodes" } },
    { name: "message paths", catalog: messagePathColumns, tables: { mp: "message_paths" } },
    { name: "topics", catalog: topicColumns, tables: { t: "topics" } },
    { name: "events", catalog: eventColumns, tables: { e: "robot_events" } },
    { name: "devices", catalog: deviceColumns, tables: { dv: "devices" } },
    { name: "target sessions", catalog: sessionColumns, tables: { s: "sessions" } },
  ]);
  expect(found).toEqual([]);
});

describe("query plans at scale: every page costs what the first does", () => {
  test("query_files: one dataset's files, newest first (first and a deep page)", async () => {
    const store = new FileSearchStore(explaining());
    const condition = { field: "dataset_id", comparator: "EQUALS", value: "ds_02500" };
    const first = await store.search(ORG, planFileSearch(spec(condition)), TOTAL_COUNT_CAP);
    expect(first.rows).toHaveLength(FILES_PER_DATASET);
    expect(problems).toEqual([]);
  });

  test("query_files: a large dataset's files, newest first, when newer datasets followed it", async () => {
    const store = new FileSearchStore(explaining());
    const condition = { field: "dataset_id", comparator: "EQUALS", value: "ds_big" };
    const plan = planFileSearch(spec(condition));
    const first = await store.search(ORG, plan, TOTAL_COUNT_CAP);
    const deep = await store.search(ORG, planFileSearch(spec(condition, { after: plan.nextToken({ key: micros(0, BIG_DATASET_FILES / 2), id: `fl_big_${BIG_DATASET_FILES / 2}` }, true) })), TOTAL_COUNT_CAP);
    expect(first.rows[0]!.nodeId).toBe(`fl_big_${BIG_DATASET_FILES}`);
    expect(deep.rows[0]!.nodeId).toBe(`fl_big_${BIG_DATASET_FILES / 2 - 1}`);
    expect(problems).toEqual([]);
  });

  test("query_dataset_files: a large dataset's files, newest first", async () => {
    const files = new FileStore(explaining());
    const order = compileKeysetOrder("created", "DESC", fileSortCatalog, `"f"."node_id"`);
    const { rows } = await files.search("ds_big", { where: rawSql("TRUE"), ...order, after: rawSql("TRUE"), limit: 100 });
    expect(rows).toHaveLength(100);
    expect(problems).toEqual([]);
  });

  test("query_files: the whole org by created, deep into the keyset", async () => {
    const store = new FileSearchStore(explaining());
    const plan = planFileSearch(spec(undefined));
    const first = await store.search(ORG, plan, TOTAL_COUNT_CAP);
    const deep = await store.search(ORG, planFileSearch(spec(undefined, { after: tokenAt(plan, middleFile()) })), TOTAL_COUNT_CAP);
    expect([first.rows.length, deep.rows.length]).toEqual([100, 100]);
    expect(first.total).toBeUndefined();
    expect(problems).toEqual([]);
  });

  test("query_files: a page near the end of the whole org's walk is not counted: the org's files are ten times the cap", async () => {
    const em = explaining();
    const statements: string[] = [];
    const execute = em.execute.bind(em);
    em.execute = ((sql: string, params: unknown[] = []) => (statements.push(sql), execute(sql, params))) as typeof em.execute;
    const plan = planFileSearch(spec(undefined));
    // 2,999 files are left after this cursor: the page's own plan expects few matches.
    const late = await new FileSearchStore(em).search(ORG, planFileSearch(spec(undefined, { after: tokenAt(plan, { key: micros(0, 3000), id: "fl_big_3000" }) })), TOTAL_COUNT_CAP);
    expect(late.rows[0]!.nodeId).toBe("fl_big_2999");
    expect(late.total).toBeUndefined();
    expect(statements.filter((sql) => / as id from /.test(sql))).toEqual([]);
    expect(problems).toEqual([]);
  });

  test("query_files: a broad metadata condition, oldest first", async () => {
    const store = new FileSearchStore(explaining());
    const condition = { field: "metadata.robot", comparator: "EQUALS", value: "r1" };
    const page = await store.search(ORG, planFileSearch(spec(condition, { sortBy: "created", sortDirection: "ASC" })), TOTAL_COUNT_CAP);
    expect(page.rows).toHaveLength(100);
    expect(problems).toEqual([]);
  });

  // One file in 30 matches: any plan reads many rows per row of the page (walking, or finding every
  // match to sort them). The engine's bound is its walk: WALK_ROWS rows in created order, never the org.
  test("query_files: a tag and a metadata flag together, newest first, within the bounded walk", async () => {
    const store = new FileSearchStore(explaining(WALK_ROWS));
    const condition = { operator: "AND", conditions: [{ field: "tags", comparator: "CONTAINS", value: "reviewed" }, { field: "metadata.calibrated", comparator: "EQUALS", value: true }] };
    const page = await store.search(ORG, planFileSearch(spec(condition)), TOTAL_COUNT_CAP);
    expect(page.rows).toHaveLength(100);
    expect(page.rows.every((r) => r.tags?.includes("reviewed") && (r.metadata as Record<string, unknown>)["calibrated"] === true)).toBe(true);
    expect(problems).toEqual([]);
  });

  test("query_files: a dataset metadata value and a file metadata value, newest first, within the bounded walk", async () => {
    const store = new FileSearchStore(explaining(WALK_ROWS));
    const condition = { operator: "AND", conditions: [{ field: "dataset.metadata.robot", comparator: "EQUALS", value: "r3" }, { field: "metadata.robot", comparator: "EQUALS", value: "r1" }] };
    const page = await store.search(ORG, planFileSearch(spec(condition)), TOTAL_COUNT_CAP);
    expect(page.rows).toHaveLength(100);
    expect(page.rows.every((r) => Number(r.associationId.slice(3)) % 7 === 3)).toBe(true);
    expect(problems).toEqual([]);
  });

  // Every match is older than the bounded walk's window, and more than the count cap: PostgreSQL would
  // walk the whole org to reach them; the engine sorts the matches it finds from the path index instead.
  test("query_files: a condition only the old big dataset's files meet reads its bounded walk and its matches, not the org", async () => {
    const store = new FileSearchStore(explaining(WALK_ROWS + 2 * BIG_DATASET_FILES));
    const page = await store.search(ORG, planFileSearch(spec({ field: "path", comparator: "LIKE", value: "big/%" })), TOTAL_COUNT_CAP);
    expect(page.rows.map((r) => r.nodeId)).toEqual(Array.from({ length: 100 }, (_, i) => `fl_big_${BIG_DATASET_FILES - i}`));
    expect(problems).toEqual([]);
  });

  // One robot's files are never in an outdoor dataset (issue 14): PostgreSQL, expecting matches,
  // would walk the org in date order to prove there are none. The page may read its bounded walk
  // (WALK_ROWS) and the rig's files from the metadata index, nothing more.
  test("a saved files query whose file and dataset conditions never meet reads its bounded walk and its matches, not the org", async () => {
    const store = new QueryResultsStore(explaining(WALK_ROWS + 2 * RIG_FILES));
    const page = await store.page("files", ORG, planOf("files", { condition: parseQueryText("metadata.rig = 'g7' AND dataset.tags CONTAINS 'outdoor'") }, "plans", undefined, 100n));
    expect(page.rows).toEqual([]);
    expect(problems).toEqual([]);
  });

  test("query_datasets: newest first, deep into the keyset", async () => {
    const store = new DatasetStore(explaining());
    const plan = planDatasetSearch(spec(undefined));
    const deep = await store.search(ORG, planDatasetSearch(spec(undefined, { after: tokenAt(plan, { key: micros(2000), id: "ds_02000" }) })));
    expect(deep.rows[0]!.datasetId).toBe("ds_01999");
    expect(problems).toEqual([]);
  });

  test.each(["topic_name = '/channel_7'", "schema_name = 'msgs/Type3'", "topic_name = '/channel_7' AND schema_name = 'msgs/Type7'"])(
    "a saved topics query over the org's topics: %s (first and a deep page)",
    async (query) => {
      const store = new QueryResultsStore(explaining());
      const plan = (after?: string) => planOf("topics", { condition: parseQueryText(query) }, "plans", after, 100n);
      const first = await store.page("topics", ORG, plan());
      const deep = await store.page("topics", ORG, plan(plan().nextToken(first.cursors[50], true)));
      expect([first.rows.length, deep.rows.length, first.hasMore]).toEqual([100, 100, true]);
      expect(problems).toEqual([]);
    },
  );

  test("query_dataset_files by path and a directory's children", async () => {
    const em = explaining();
    const files = new FileStore(em);
    const { rows } = await files.search("ds_04000", { where: rawSql("TRUE"), ...compileKeysetOrder("relative_path", "ASC", fileSortCatalog, `"f"."node_id"`), after: rawSql("TRUE"), limit: 10 });
    const children = await new TreeStore(files).children("ds_04000", "dr_04000", true, 11, rows[4]);
    expect(children.map((c) => c.name)).toEqual(Array.from({ length: 11 }, (_, i) => `f${String(i + 6).padStart(2, "0")}.mcap`));
    expect(problems).toEqual([]);
  });
});

// A deep ascending page must start its index range at the cursor: a predicate with a null arm
// (`(key, id) > cursor or key is null`) makes PostgreSQL read the index from its start and filter
// every earlier row (1.85 s at 10,000,000 metric values), which planProblems reports.
describe("deep ascending pages start at the cursor", () => {
  test("query_files: the whole org by created, oldest first, deep into the keyset", async () => {
    const store = new FileSearchStore(explaining());
    const ascending = { sortBy: "created", sortDirection: "ASC" };
    const plan = planFileSearch(spec(undefined, ascending));
    const deep = await store.search(ORG, planFileSearch(spec(undefined, { ...ascending, after: tokenAt(plan, middleFile()) })), TOTAL_COUNT_CAP);
    expect(deep.rows[0]!.nodeId).toBe(fileId(DATASETS / 2, 21));
    expect(problems).toEqual([]);
  });

  test("query_datasets: oldest first, deep into the keyset", async () => {
    const store = new DatasetStore(explaining());
    const ascending = { sortBy: "created", sortDirection: "ASC" };
    const plan = planDatasetSearch(spec(undefined, ascending));
    const deep = await store.search(ORG, planDatasetSearch(spec(undefined, { ...ascending, after: tokenAt(plan, { key: micros(2000), id: "ds_02000" }) })));
    expect(deep.rows[0]!.datasetId).toBe("ds_02001");
    expect(problems).toEqual([]);
  });

  test("query_dataset_files: a large dataset's files by path, deep into the keyset", async () => {
    const files = new FileStore(explaining());
    const order = compileKeysetOrder("relative_path", "ASC", fileSortCatalog, `"f"."node_id"`);
    const after = order.after({ key: "big/f5000", id: "fl_big_5000" }, "page_token");
    const { rows } = await files.search("ds_big", { where: rawSql("TRUE"), ...order, after, limit: 100 });
    expect(rows[0]!.relativePath).toBe("big/f5001");
    expect(problems).toEqual([]);
  });

  const selection = (window?: { startNs: bigint; endNs: bigint }): MetricValueSelection => ({
    metricIds: [METRIC],
    timeFilter: "end_time",
    window,
    deviceIds: undefined,
    sessionIds: undefined,
    invocationIds: undefined,
    condition: undefined,
    groupBy: undefined,
  });
  const ascendingByTime = { sortBy: "time", descending: false } as const;
  const middle = METRIC_VALUES / 2;

  test("query_metric_values by time ascending, without a window: the later times, then the values without one", async () => {
    const store = new MetricStore(explaining());
    const deep = await store.queryValues(selection(), ascendingByTime, { limit: 100, cursor: { key: String(sessionEndNs(middle)), id: sessionId(middle) } });
    expect(deep.rows.map((r) => r.sessionId)).toEqual(Array.from({ length: 100 }, (_, i) => sessionId(middle + 1 + i)));
    // The page across the last timed value goes on with the values without a time, none skipped.
    const last = await store.queryValues(selection(), ascendingByTime, { limit: 100, cursor: { key: String(sessionEndNs(METRIC_VALUES - 50)), id: sessionId(METRIC_VALUES - 50) } });
    expect(last.rows.map((r) => r.sessionId)).toEqual([
      ...Array.from({ length: 50 }, (_, i) => sessionId(METRIC_VALUES - 49 + i)),
      ...Array.from({ length: 50 }, (_, i) => sessionId(i + 1)),
    ]);
    const nulls = await store.queryValues(selection(), ascendingByTime, { limit: 100, cursor: last.cursors[99] });
    expect(nulls.rows.map((r) => r.sessionId)).toEqual(Array.from({ length: NULL_TIME_SESSIONS - 50 }, (_, i) => sessionId(i + 51)));
    expect(nulls.hasMore).toBe(false);
    expect(problems).toEqual([]);
  });

  test("query_metric_values by time ascending, in a window (where the time cannot be null)", async () => {
    const store = new MetricStore(explaining());
    const window = { startNs: 0n, endNs: sessionEndNs(METRIC_VALUES) + 1n };
    const deep = await store.queryValues(selection(window), ascendingByTime, { limit: 100, cursor: { key: String(sessionEndNs(middle)), id: sessionId(middle) } });
    expect(deep.rows[0]!.sessionId).toBe(sessionId(middle + 1));
    expect(problems).toEqual([]);
  });
});

// total_count is exact up to COUNT_CAP (1,000) and null above; what decides it should cost less
// than the capped count (issue 11) where the page or PostgreSQL's estimate already knows.
describe("total_count: from the page where it can, counted only when it must", () => {
  /** The dataset search's page and the statements it ran. */
  async function searchedWith(condition: JsonValue | undefined, extra: { limit?: bigint; after?: string } = {}) {
    const em = orm.em.fork();
    const statements: string[] = [];
    const execute = em.execute.bind(em);
    em.execute = ((sql: string, params: unknown[] = []) => (statements.push(sql), execute(sql, params))) as typeof em.execute;
    const page = await new DatasetStore(em).search(ORG, planDatasetSearch({ ...spec(condition), ...extra }));
    return { page, statements };
  }
  /** The dataset search's total and whether it ran the capped count (`select count(*) ... capped`). */
  async function searched(condition: JsonValue | undefined, extra: { limit?: bigint; after?: string } = {}) {
    const { page, statements } = await searchedWith(condition, extra);
    return { rows: page.rows.length, total: page.total, counted: statements.some((s) => /\) capped$/.test(s)) };
  }
  const robot = (r: string) => ({ field: "metadata.robot", comparator: "EQUALS", value: r });
  // The seed's matches: robot r1, one dataset in 7 of 5,000; the outdoor tag, one in 5 (exactly the cap).
  const R1 = Math.floor((DATASETS - 1) / 7) + 1;
  const OUTDOOR = DATASETS / 5;

  test("a first page of 1,000 (the SDK's) that is not full is the count", async () => {
    expect(await searched(robot("r1"), { limit: 1000n })).toEqual({ rows: R1, total: R1, counted: false });
    expect(await searched({ field: "tags", comparator: "CONTAINS", value: "outdoor" }, { limit: 1000n })).toEqual({ rows: OUTDOOR, total: OUTDOOR, counted: false });
  });

  test("a page of 1,000 holding more rows than the cap shows the matches do, on any page", async () => {
    expect(await searched(undefined, { limit: 1000n })).toEqual({ rows: 1000, total: undefined, counted: false });
    const plan = planDatasetSearch(spec(undefined));
    expect(await searched(undefined, { limit: 1000n, after: tokenAt(plan, { key: micros(4000), id: "ds_04000" }) })).toEqual({ rows: 1000, total: undefined, counted: false });
  });

  test("the last page of a walk at 1,000 is counted", async () => {
    const plan = planDatasetSearch(spec(robot("r1")));
    const last = await searched(robot("r1"), { limit: 1000n, after: tokenAt(plan, { key: micros(4998), id: "ds_04998" }) });
    expect(last).toEqual({ rows: R1 - 1, total: R1, counted: true });
  });

  test("a first page of any size that is not full is the count: one statement, no estimate, no count", async () => {
    const { page, statements } = await searchedWith({ field: "name", comparator: "EQUALS", value: "run 4321" }, { limit: 10n });
    expect({ rows: page.rows.length, total: page.total, statements: statements.length }).toEqual({ rows: 1, total: 1, statements: 1 });
    expect(await searched(robot("r1"), { limit: BigInt(R1) })).toEqual({ rows: R1, total: R1, counted: false });
    expect(await searched(robot("r1"), { limit: BigInt(R1 - 1) })).toEqual({ rows: R1 - 1, total: R1, counted: true });
  });

  test("a condition PostgreSQL expects to match ten times the cap or more is not counted", async () => {
    expect(await searched({ field: "tags", comparator: "CONTAINS", value: "archived" })).toEqual({ rows: 100, total: undefined, counted: false });
  });

  test("else the matches are counted exactly, up to the cap, on any page", async () => {
    expect(await searched(robot("r1"))).toEqual({ rows: 100, total: R1, counted: true });
    const plan = planDatasetSearch(spec(robot("r1")));
    const deep = await searched(robot("r1"), { after: tokenAt(plan, { key: micros(4998), id: "ds_04998" }) });
    expect(deep).toEqual({ rows: 100, total: R1, counted: true });
    expect(await searched({ field: "tags", comparator: "CONTAINS", value: "outdoor" })).toEqual({ rows: 100, total: OUTDOOR, counted: true });
  });
});

describe("term queries: case-insensitive, served by trigram indexes", () => {
  const termPage = (target: QueryTargetName, term: string) =>
    new QueryResultsStore(explaining()).page(target, ORG, planOf(target, { condition: termCondition(target, term) }, "plans", undefined, 100n));

  test("datasets by a word of their name, in another case", async () => {
    const { rows } = await termPage("datasets", "RUN 4321");
    expect(rows.map((r) => (r.target === "datasets" ? r.dataset.datasetId : r.target))).toEqual(["ds_04321"]);
    expect(problems).toEqual([]);
  });

  test("files by a part of their path, in another case", async () => {
    const { rows } = await termPage("files", "BIG/F1999");
    expect(rows).toHaveLength(11);
    expect(problems).toEqual([]);
  });

  test("a dataset by its id", async () => {
    const { rows } = await termPage("datasets", "ds_00042");
    expect(rows).toHaveLength(1);
    expect(problems).toEqual([]);
  });
});

// The token a search hands out after a row at `cursor` (what the previous page's last row gives).
function tokenAt(plan: ReturnType<typeof planFileSearch>, cursor: PageCursor): string {
  return plan.nextToken(cursor, true)!;
}

function middleFile(): PageCursor {
  const dataset = DATASETS / 2;
  return { key: micros(dataset, 20), id: fileId(dataset, 20) };
}

/** Microseconds since the epoch of dataset `i`'s creation (plus `second` seconds): minutes apart. */
function micros(i: number, second = 0): string {
  return String((Date.UTC(2026, 0, 1) + i * 60_000 + second * 1000) * 1000);
}

function sessionId(i: number): string {
  return `ss_${String(i).padStart(6, "0")}`;
}

/**
 * The time of session `i`'s metric value (its end), a second apart from 2025 on: nanoseconds since
 * the epoch, 19 digits, as real times are. Sessions up to NULL_TIME_SESSIONS have none.
 */
function sessionEndNs(i: number): bigint {
  return METRIC_EPOCH_NS + BigInt(i) * 1_000_000_000n;
}

function fileId(dataset: number, n: number): string {
  return `fl_${String(dataset).padStart(5, "0")}_${String(n).padStart(2, "0")}`;
}

async function seed(em: EntityManager): Promise<void> {
  const at = (i: string, second = "0") => `timestamptz '2026-01-01 00:00:00+00' + (${i}) * interval '1 minute' + (${second}) * interval '1 second'`;
  await em.execute(`
    insert into datasets (dataset_id, org_id, name, metadata, tags, created, created_by, modified, modified_by)
    select 'ds_' || lpad(i::text, 5, '0'), '${ORG}', 'run ' || i, jsonb_build_object('robot', 'r' || (i % 7)), case when i % 5 = 0 then array['outdoor'] else array[]::text[] end, ${at("i")}, 'u', ${at("i")}, 'u'
    from generate_series(1, ${DATASETS}) i;
    insert into fs_nodes (node_id, org_id, association_id, association_type, fs_type, parent_id, name, relative_path, status, created, created_by, modified, modified_by)
    select 'dr_' || lpad(i::text, 5, '0'), '${ORG}', 'ds_' || lpad(i::text, 5, '0'), 'dataset', 'directory', null, 'logs', 'logs', 'available', ${at("i")}, 'u', ${at("i")}, 'u'
    from generate_series(1, ${DATASETS}) i;
    insert into fs_nodes (node_id, org_id, association_id, association_type, fs_type, parent_id, name, relative_path, status, metadata, tags, created, created_by, modified, modified_by)
    select 'fl_' || lpad(i::text, 5, '0') || '_' || lpad(n::text, 2, '0'), '${ORG}', 'ds_' || lpad(i::text, 5, '0'), 'dataset', 'file', 'dr_' || lpad(i::text, 5, '0'),
      'f' || lpad(n::text, 2, '0') || '.mcap', 'logs/f' || lpad(n::text, 2, '0') || '.mcap', 'available',
      jsonb_build_object('robot', 'r' || (n % 2), 'rig', 'g' || (i % 50), 'calibrated', n % 3 = 0), case when n % 10 = 0 then array['reviewed'] else array[]::text[] end,
      ${at("i", "n")}, 'u', ${at("i", "n")}, 'u'
    from generate_series(1, ${DATASETS}) i, generate_series(1, ${FILES_PER_DATASET}) n;
    -- Older datasets without files make the org big enough that reading all of it is never the cheap
    -- plan; their tags give the planner element statistics, as real tags do.
    insert into datasets (dataset_id, org_id, name, tags, created, created_by, modified, modified_by)
    select 'ds_old_' || i, '${ORG}', 'archived ' || i, array['archived', 'site-' || (i % 20)], timestamptz '2020-01-01 00:00:00+00' + i * interval '1 minute', 'u', now(), 'u'
    from generate_series(1, ${OLD_DATASETS}) i;
    insert into datasets (dataset_id, org_id, name, created, created_by, modified, modified_by)
    values ('ds_big', '${ORG}', 'big', ${at("0")}, 'u', ${at("0")}, 'u');
    insert into fs_nodes (node_id, org_id, association_id, association_type, fs_type, name, relative_path, status, created, created_by, modified, modified_by)
    select 'fl_big_' || n, '${ORG}', 'ds_big', 'dataset', 'file', 'f' || n, 'big/f' || n, 'available', ${at("0", "n")}, 'u', ${at("0", "n")}, 'u'
    from generate_series(1, ${BIG_DATASET_FILES}) n;
    insert into topics (topic_id, org_id, association_type, association_id, topic_name, schema_name, metadata, created, created_by, modified, modified_by)
    select 'tp_' || i, '${ORG}', 'file', 'fl_rec_' || (i / 20), '/channel_' || (i % 20), 'msgs/Type' || (i % 50), '{}', ${at("i / 20", "i % 20")}, 'u', ${at("i / 20", "i % 20")}, 'u'
    from generate_series(1, ${TOPICS}) i;
    insert into metric_definitions (metric_id, org_id, name, created, created_by, modified, modified_by)
    values ('${METRIC}', '${ORG}', 'distance.km', now(), 'u', now(), 'u');
    insert into sessions (session_id, org_id, min_timestamp_ns, max_timestamp_ns, created, created_by, modified, modified_by)
    select 'ss_' || lpad(i::text, 6, '0'), '${ORG}', case when i > ${NULL_TIME_SESSIONS} then ${METRIC_EPOCH_NS}::bigint + i * 1000000000::bigint - 1 end,
      case when i > ${NULL_TIME_SESSIONS} then ${METRIC_EPOCH_NS}::bigint + i * 1000000000::bigint end, now(), 'u', now(), 'u'
    from generate_series(1, ${METRIC_VALUES}) i;
    insert into metric_values (metric_id, session_id, org_id, value, device_id, session_start_ns, session_end_ns, published, published_by)
    select '${METRIC}', session_id, org_id, 1, 'robot-1', min_timestamp_ns, max_timestamp_ns, now(), 'u' from sessions;
    analyze datasets;
    analyze fs_nodes;
    analyze topics;
    analyze sessions;
    analyze metric_values;
  `);
}
