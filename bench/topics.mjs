// Benchmark: topic reads at scale (issue 12). Run with `npm run build && npm run bench:topics`. A
// few minutes on 2 cores (BENCH_QUICK=1: about one).
//
// One dataset holds 10,000 topics (BENCH_TOPICS), each with 3 message paths and one representation,
// seeded with SQL (the figures are about reads). Then, one request at a time through the gateway:
// - list_association_topics (GET /v1/topics/association/dataset%3A<id>), the default page (100 topics);
// - the same listing 50 pages deep (keyset tokens: a deep page costs what the first does);
// - get_topic by association and name, and get_topic_by_id, over topics spread through the dataset.
// p50 against the goal (< 10 ms) and the Node+pg anchor of the same run; p99 beside it.
//
// The platform runs as `npm start` runs it (one process, its embedded PostgreSQL with the default
// durability); this process only generates load.
import pgModule from "pg";
import { measureAnchors, reportAnchors } from "./anchor-figures.mjs";
import { sequential } from "./measure.mjs";
import { startBenchPlatform } from "./platform.mjs";
import { createReport, sized } from "./report.mjs";

const TOPICS = Number(process.env.BENCH_TOPICS ?? sized(10_000, 2_000));
const REQUESTS = sized(300, 60);
const GOAL_P50_MS = 10;

const report = createReport("topics");
const platform = await startBenchPlatform();
const db = new pgModule.Client({ connectionString: platform.pgUrl });
try {
  await db.connect();
  const datasetId = (await platform.api("POST", "/v1/datasets", { name: "topics-bench" })).data.dataset_id;
  await report.attempt("seeding", () => seed(datasetId));
  const anchors = await measureAnchors(platform.pgUrl);
  reportAnchors(report, anchors);
  const association = encodeURIComponent(`dataset:${datasetId}`);
  const deepToken = await tokenAtPage(association, 50);
  const pick = () => Math.floor(Math.random() * TOPICS);
  const cases = [
    { name: "list_association_topics, first page (100 topics)", call: () => platform.api("GET", `/v1/topics/association/${association}`) },
    { name: "list_association_topics, page 50", call: () => platform.api("GET", `/v1/topics/association/${association}?page_token=${deepToken}`) },
    { name: "get_topic by association and name", call: () => platform.api("GET", `/v1/topics/association/${association}/name/${encodeURIComponent(`/bench/topic_${pick()}`)}`) },
    { name: "get_topic_by_id", call: () => platform.api("GET", `/v1/topics/id/tp_bench_${pick()}`) },
  ];
  for (const c of cases) await report.attempt(c.name, async () => addLatency(c.name, await sequential(c.call, REQUESTS), anchors.pg.p50));
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

function addLatency(name, { p50, p99 }, anchorMs) {
  report.add(`${name}, p50`, p50, "ms", { goal: { max: GOAL_P50_MS }, anchor: { name: "Node+pg p50", value: anchorMs } });
  report.add(`${name}, p99`, p99, "ms");
}
