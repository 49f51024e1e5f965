// Stand-in for bench/anchors.mjs (the perf benchmark's anchors) until that lands: same interface.
// Run as a script, it serves the two anchors and prints their ports as one JSON line.
import { spawn } from "node:child_process";
import http from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * Starts the two anchors in a child process of their own (so their CPU is not the load
 * generator's): a bare `node:http` server answering a fixed JSON body, and one answering each
 * request with a primary-key SELECT of a dataset row through `pg`, against `databaseUrl`.
 * Resolves `{ httpUrl, pgUrl, stop() }`.
 */
export async function startAnchors({ databaseUrl }) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), databaseUrl], { stdio: ["ignore", "pipe", "inherit"] });
  const ports = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`anchors exited (${code})`)));
    child.stdout.once("data", (line) => resolve(JSON.parse(String(line))));
  });
  return {
    httpUrl: `http://127.0.0.1:${ports.http}/`,
    pgUrl: `http://127.0.0.1:${ports.pg}/`,
    stop: () => new Promise((resolve) => child.once("exit", resolve).kill("SIGTERM")),
  };
}

async function serve(databaseUrl) {
  const require = createRequire(import.meta.url);
  const { Pool } = require("pg");
  const pool = new Pool({ connectionString: databaseUrl, max: 16 });
  const found = await pool.query("select dataset_id from data.datasets order by dataset_id limit 1");
  const datasetId = found.rows[0]?.dataset_id ?? "ds_none";
  const answer = (res, body) => res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
  const bare = http.createServer((_req, res) => answer(res, '{"data":{"ok":true}}'));
  const withPg = http.createServer((_req, res) => {
    pool.query({ name: "anchor", text: "select * from data.datasets where dataset_id = $1", values: [datasetId] }).then(
      (result) => answer(res, JSON.stringify({ data: result.rows[0] ?? null })),
      () => res.writeHead(500).end(),
    );
  });
  await Promise.all([bare, withPg].map((server) => new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))));
  process.stdout.write(`${JSON.stringify({ http: bare.address().port, pg: withPg.address().port })}\n`);
  process.once("SIGTERM", () => void pool.end().finally(() => process.exit(0)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await serve(process.argv[2]);
