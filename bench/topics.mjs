// Benchmark: topic reads at scale (issue 12). Run with `npm run build && npm run bench:topics`. A
// few minutes on 2 cores (BENCH_QUICK=1: about one).
//
// One dataset holds 10,000 topics (BENCH_TOPICS), each with 3 message paths and one representation,
// seeded with SQL (the figures are about reads). Then, one request at a time through the gateway:
// - list_association_topics (GET /v1/topics/association/dataset%3A<id>), the default page (100 topics);
// - the same listing 50 pages deep (keyset tokens: a deep page costs what the first does);
// - get_topic by association and name, and get_topic_by_id, over topics spread through the dataset.
// p50 against the goal (< 10 ms) and the Node+pg anchor of the same run; p99 beside it. Where the
// listing's time goes: its one statement run directly with pg, and the page's protobuf and JSON sizes.
//
// Then the org gets 1,000,000 more topics (BENCH_ORG_TOPICS; 20 channel names and 10 schemas over
// 50,000 recordings, as an MCAP fleet has them) and saved topic queries by name, by schema and by
// both are submitted (`POST /v1/query/submit/roboql`, target `topics`) and their first page of 100
// read (`GET /v1/query/id/{id}/results`): p50 against the goal (< 50 ms), beside the page's own
// statements (the data service's `planOf` and `querySource` with the shared `matchesFirstPage`, from dist/) run directly with pg.
//
// The platform runs as `npm start` runs it (one process, its embedded PostgreSQL with the default
// durability); this process only generates load.
import { createRequire } from "node:module";
import pgModule from "pg";
import { measureAnchors, reportAnchors } from "./anchor-figures.mjs";
import { cpuPerRequest, ownCpuSnapshot } from "./anchors.mjs";
import { sequential } from "./measure.mjs";
import { startBenchPlatform } from "./platform.mjs";
import { createReport, sized } from "./report.mjs";

const require = createRequire(import.meta.url);
const { COUNT_CAP, matchesFirstPage, parseQueryText } = require("../services/shared/dist/index.js");
const { planOf } = require("../services/data/dist/domain/saved-queries.js");
const { querySource } = require("../services/data/dist/store/query-results-store.js");
const { TopicStore } = require("../services/data/dist/store/topic-store.js");
const { fromJson, toBinary } = require("@bufbuild/protobuf");
const { ListAssociationTopicsResponseSchema } = require("../services/shared/dist/proto/data.js");

const TOPICS = Number(process.env.BENCH_TOPICS ?? sized(10_000, 2_000));
const ORG_TOPICS = Number(process.env.BENCH_ORG_TOPICS ?? sized(1_000_000, 50_000));
const REQUESTS = sized(300, 60);
const QUERY_REQUESTS = sized(100, 20);
const GOAL_P50_MS = 10;
const QUERY_GOAL_P50_MS = 50;
const PAGE = 100;
/** The deep page the listing is read at: 50, or the last full one of a smaller (BENCH_QUICK) dataset. */
const DEEP_PAGE = Math.min(50, Math.floor(TOPICS / PAGE));

const QUERIES = ["topic_name = '/channel_7'", "schema_name = 'bench_msgs/Type3'", "topic_name = '/channel_7' AND schema_name = 'bench_msgs/Type7'"];

const report = createReport("topics");
const platform = await startBenchPlatform();
/** The Node+pg anchor of this run, measured once the topics are seeded. */
let anchors;
const db = new pgModule.Client({ connectionString: platform.pgUrl });
try {
  await db.connect();
  // The data service's schema, as its own connections have it: the statements run directly are its own text.
  await db.query("set search_path to data");
  const datasetId = (await platform.api("POST", "/v1/datasets", { name: "topics-bench" })).data.dataset_id;
  await report.attempt("seeding", () => seed(datasetId));
  anchors = await measureAnchors(platform.pgUrl);
  reportAnchors(report, anchors);
  const association = encodeURIComponent(`dataset:${datasetId}`);
  const deepToken = await tokenAtPage(association, DEEP_PAGE);
  const pick = () => Math.floor(Math.random() * TOPICS);
  const cases = [
    { name: "list_association_topics, first page (100 topics)", call: () => platform.api("GET", `/v1/topics/association/${association}`) },
    { name: `list_association_topics, page ${DEEP_PAGE}`, call: () => platform.api("GET", `/v1/topics/association/${association}?page_token=${deepToken}`) },
    { name: "get_topic by association and name", call: () => platform.api("GET", `/v1/topics/association/${association}/name/${encodeURIComponent(`/bench/topic_${pick()}`)}`) },
    { name: "get_topic_by_id", call: () => platform.api("GET", `/v1/topics/id/tp_bench_${pick()}`) },
  ];
  for (const c of cases) await report.attempt(c.name, () => measureCase(c));
  await report.attempt("where the listing's time goes", () => listingSplit(datasetId, association));
  // BENCH_ORG_TOPICS=0 measures the dataset's reads alone.
  if (ORG_TOPICS > 0) {
    await report.attempt("seeding the org's topics", () => seedOrgTopics());
    for (const query of QUERIES) await report.attempt(`topics query ${query}`, () => benchQuery(query));
  }
} finally {
  await db.end();
  await platform.stop();
}
report.print();

/** Topics with 3 message paths and one representation each, in one statement per table. */
async function seed(datasetId) {
  const started = performance.now();
  const orgId = platform.orgId;
  await db.query(
    `insert into data.topics (topic_id, org_id, association_type, association_id, topic_name, schema_name, start_time, end_time, message_count,
                              metadata, created, created_by, modified, modified_by)
     select 'tp_bench_' || k, $1, 'dataset', $2, '/bench/topic_' || k, 'bench/Msg', 1700000000000000000 + k, 1700000001000000000 + k, 1000,
            jsonb_build_object('k', k), now(), 'bench', now(), 'bench'
     from generate_series(0, $3::int - 1) k`,
    [orgId, datasetId, TOPICS],
  );
  await db.query(
    `insert into data.message_paths (message_path_id, topic_id, org_id, message_path, source_path, path_in_schema, data_type, canonical_data_type,
                                     created, created_by, modified, modified_by)
     select 'mp_bench_' || k || '_' || p, 'tp_bench_' || k, $1, (array['x', 'y', 'pose.z'])[p], (array['x', 'y', 'pose.z'])[p],
            string_to_array((array['x', 'y', 'pose.z'])[p], '.'), 'float64', 'number', now(), 'bench', now(), 'bench'
     from generate_series(0, $2::int - 1) k cross join generate_series(1, 3) p`,
    [orgId, TOPICS],
  );
  await db.query(
    `insert into data.representations (representation_id, topic_id, org_id, association_type, association_id, storage_format, version, created, modified)
     select 'rp_bench_' || k, 'tp_bench_' || k, $1, 'file', 'fl_bench', 'mcap', 1, now(), now() from generate_series(0, $2::int - 1) k`,
    [orgId, TOPICS],
  );
  await db.query(
    `insert into data.message_path_representations (representation_id, message_path_id)
     select 'rp_bench_' || k, 'mp_bench_' || k || '_' || p from generate_series(0, $1::int - 1) k cross join generate_series(1, 3) p`,
    [TOPICS],
  );
  await db.query("analyze data.topics; analyze data.message_paths; analyze data.representations; analyze data.message_path_representations");
  report.add(`seeding ${TOPICS.toLocaleString("en-US")} topics (3 message paths and a representation each)`, (performance.now() - started) / 1000, "s");
}

/**
 * Where the first page's time goes: its one statement (the text the data service's TopicStore
 * builds, captured from it) run directly with pg, and the page as protobuf (what the service sends)
 * and as JSON (what the gateway writes).
 */
async function listingSplit(datasetId, association) {
  let statement;
  const capturing = { isInTransaction: () => true, execute: async (sql, params) => ((statement = { sql, params }), [{ total: "0", topic_id: null }]) };
  await new TopicStore(capturing).list(platform.orgId, datasetId, { limit: PAGE, before: undefined });
  const direct = await sequential(async () => ({ data: { items: (await db.query(numbered(statement.sql), statement.params)).rows } }), REQUESTS);
  report.add("list_association_topics, first page: its one SQL statement run directly, p50", direct.p50, "ms");
  const page = (await platform.api("GET", `/v1/topics/association/${association}`)).data;
  report.add("list_association_topics, first page as protobuf (100 topics x 3 paths, each with its representation)", toBinary(ListAssociationTopicsResponseSchema, fromJson(ListAssociationTopicsResponseSchema, page)).length / 1024, "KiB");
  report.add("list_association_topics, first page as the gateway's JSON", JSON.stringify({ data: page }).length / 1024, "KiB");
}

/**
 * The org's other topics: ORG_TOPICS of 50,000 file associations (none of them a file: topic
 * queries read the topics themselves), 20 channel names and 10 schemas, created over a year.
 */
async function seedOrgTopics() {
  const started = performance.now();
  await db.query(
    `insert into data.topics (topic_id, org_id, association_type, association_id, topic_name, schema_name, start_time, end_time, message_count,
                              metadata, created, created_by, modified, modified_by)
     select 'tp_org_' || k, $1, 'file', 'fl_rec_' || (k / 20), '/channel_' || (k % 20), 'bench_msgs/Type' || (k % 10),
            1700000000000000000 + k, 1700000001000000000 + k, 1000, '{}', created, 'bench', created, 'bench'
     from generate_series(0, $2::int - 1) k, lateral (select timestamptz '2026-01-01' + k * (interval '1 year' / $2::int) as created) c`,
    [platform.orgId, ORG_TOPICS],
  );
  await db.query("analyze data.topics");
  report.add(`seeding ${ORG_TOPICS.toLocaleString("en-US")} more topics in the org`, (performance.now() - started) / 1000, "s");
}

/** One saved topic query: submitted, then its first page read through the gateway and as its statement directly. */
async function benchQuery(query) {
  const record = (await platform.api("POST", "/v1/query/submit/roboql", { query, target: "topics" })).data;
  const plan = planOf("topics", { condition: parseQueryText(query) }, "bench", undefined, BigInt(PAGE));
  const execute = async (statement) => (await db.query(numbered(statement.sql), [...statement.params])).rows;
  const direct = await sequential(async () => ({ data: { items: (await matchesFirstPage(execute, querySource("topics", platform.orgId), plan, COUNT_CAP, { counted: false })).rows } }), QUERY_REQUESTS);
  const gateway = await sequential(() => platform.api("GET", `/v1/query/id/${record.query_id}/results?limit=${PAGE}`), QUERY_REQUESTS);
  const label = `topics query "${query}" (${record.result_count} matches)`;
  report.add(`${label}: the page's SQL statements run directly, p50`, direct.p50, "ms");
  report.add(`${label}: first page of ${PAGE} through the gateway, p50`, gateway.p50, "ms", { goal: { max: QUERY_GOAL_P50_MS }, anchor: { name: "same SQL p50", value: direct.p50 } });
  report.add(`${label}: first page through the gateway, p99`, gateway.p99, "ms");
}

/** knex's `?` placeholders as PostgreSQL's `$1, $2, ...`. */
function numbered(text) {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** The page token of listing page `page` (1-based), following next_token from the first. */
async function tokenAtPage(association, page) {
  let token = "";
  for (let i = 1; i < page; i++) {
    const body = await platform.api("GET", `/v1/topics/association/${association}${token ? `?page_token=${token}` : ""}`);
    token = body.data.next_token;
    if (!token) throw new Error(`the listing ended before page ${page}`);
  }
  return token;
}

/**
 * One read, one request at a time: its wall time (p50 against the goal and the Node+pg anchor,
 * p99) and the CPU it costs per request, the platform's main thread (gateway and services) and its
 * PostgreSQL apart, so a figure on the loaded machine says what is work and what is waiting.
 */
async function measureCase({ name, call }) {
  const cpuOf = () => ownCpuSnapshot({ platformPid: platform.child.pid, postmasterPid: platform.postmasterPid });
  const before = cpuOf();
  const { p50, p99 } = await sequential(call, REQUESTS);
  const cpu = cpuPerRequest(before, cpuOf(), REQUESTS);
  report.add(`${name}, p50`, p50, "ms", { goal: { max: GOAL_P50_MS }, anchor: { name: "Node+pg p50", value: anchors.pg.p50 } });
  report.add(`${name}, p99`, p99, "ms");
  report.add(`${name}: CPU per request, platform main thread`, cpu.platform / 1000, "ms");
  report.add(`${name}: CPU per request, PostgreSQL`, cpu.postgres / 1000, "ms");
}
