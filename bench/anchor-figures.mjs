// The anchors' figures, measured the way each benchmark measures its own, in the same run.
import http from "node:http";
import { createRequire } from "node:module";
import { startAnchor } from "./anchors.mjs";
import { closedLoop, httpJson, percentile } from "./lib.mjs";
import { sized } from "./report.mjs";

const pg = createRequire(import.meta.url)("pg");

/**
 * Starts the bare Node HTTP and Node+pg anchors against `databaseUrl` (the platform's own
 * PostgreSQL), measures each with the client the benchmarks use for their figures (Node's http
 * agent, JSON parsed): p50 of one request at a time and requests/s from `concurrency` callers back
 * to back; stops them and resolves `{ http, pg }`, each `{ p50, rps }`. A benchmark's ratio to them
 * says what the platform costs above one round trip (http) or one indexed row (pg).
 */
export async function measureAnchors(databaseUrl, { requests = sized(500, 100), concurrency = 16, ms = sized(3_000, 1_000) } = {}) {
  const datasetId = await someDatasetId(databaseUrl);
  const [plain, pg] = await Promise.all([startAnchor("http", { body: '{"data":{}}' }), startAnchor("pg", { databaseUrl })]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    return { http: await measureUrl(agent, plain.url, requests, concurrency, ms), pg: await measureUrl(agent, `${pg.url}/${datasetId}`, requests, concurrency, ms) };
  } finally {
    agent.destroy();
    await Promise.all([plain.stop(), pg.stop()]);
  }
}

/** A dataset row the Node+pg anchor reads by primary key (the benchmarks create datasets first). */
async function someDatasetId(databaseUrl) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const found = await pool.query("select dataset_id from data.datasets order by dataset_id limit 1");
    if (found.rows.length === 0) throw new Error("the anchors need a dataset: create one before measuring them");
    return found.rows[0].dataset_id;
  } finally {
    await pool.end();
  }
}

/** Adds the anchors' own figures to `report` as context rows. */
export function reportAnchors(report, anchors, concurrency = 16) {
  report.add("anchor: bare Node HTTP, p50 one request at a time", anchors.http.p50, "ms");
  report.add("anchor: Node+pg primary-key SELECT, p50 one request at a time", anchors.pg.p50, "ms");
  report.add(`anchor: Node+pg primary-key SELECT, ${concurrency} callers`, anchors.pg.rps, "req/s");
}

async function measureUrl(agent, url, requests, concurrency, ms) {
  const call = () => httpJson(agent, "GET", url, "anchor");
  for (let i = 0; i < 50; i++) await call();
  const latencies = [];
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    await call();
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  const loop = await closedLoop(call, ms, concurrency);
  return { p50: percentile(latencies, 50), rps: (loop.latencies.length * 1000) / loop.elapsed };
}
