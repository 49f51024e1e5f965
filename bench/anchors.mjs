// The benchmarks' anchors: what bare Node does on this machine in the same minutes, so that a
// platform figure is read as a ratio to it rather than as an absolute that drifts with the load of a
// shared VM. Each anchor is a child process:
//   - `http`: a bare `node:http` server answering every request with one fixed JSON body;
//   - `pg`: a bare `node:http` server doing one primary-key SELECT of a dataset row through `pg`
//     (a pool of 10, as the services' ORM pool, and a named prepared statement, as `get_dataset`
//     reads) and answering the row as JSON.
// Also here: CPU attribution limited to the benchmark's own processes (the platform itself starts
// through bench/platform.mjs). `node bench/anchors.mjs serve <http|pg>` is the child's entry point.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const SELF = fileURLToPath(import.meta.url);
/** The anchor's SELECT: the dataset row by primary key, from the data service's schema. */
const DATASET_BY_ID = "select * from data.datasets where dataset_id = $1";

/**
 * Starts one anchor as a child process on a free loopback port and resolves `{ kind, url, pid,
 * stop() }` once it listens. `http` needs `body` (the JSON text every answer carries; pass what
 * the platform answers, so both send the same bytes); `pg` needs `databaseUrl` and answers
 * `GET /<dataset id>` with `{"data": <row>}` (404 when no row). `nodeArgs`: the child's Node flags
 * (bench:cpu-layers names its JIT frames for perf).
 */
export async function startAnchor(kind, { body, databaseUrl, nodeArgs = [] } = {}) {
  const env = { ...process.env, ANCHOR_BODY: body ?? "", ANCHOR_DATABASE_URL: databaseUrl ?? "" };
  const child = spawn(process.execPath, [...nodeArgs, SELF, "serve", kind], { env, stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the ${kind} anchor exited (${code})`)));
    child.stdout.once("data", (chunk) => resolve(Number(JSON.parse(String(chunk)).port)));
  });
  child.removeAllListeners("exit");
  return {
    kind,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: () => new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGTERM"))),
  };
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * CPU time (ms) the benchmark's own processes have consumed so far, by part: the platform's main
 * thread (`platform`: the gateway and, in the embedded default, the services), its worker threads
 * if any (`workers`) and its helper threads (V8's GC and compiler workers, libuv's pool); each anchor (`anchor:<kind>`, whole process); the platform's
 * PostgreSQL (its postmaster and every process forked from it, found by pid, not by name, so other
 * servers on the machine do not count); and this process, the load generator (`client`). Linux
 * only: read from /proc. Subtract two snapshots with `cpuPerRequest`.
 */
export function ownCpuSnapshot({ platformPid, postmasterPid, anchors = [] }) {
  const split = { platform: 0, workers: 0, helpers: 0, postgres: 0, client: 0 };
  for (const tid of readdirSync(`/proc/${platformPid}/task`)) {
    const stat = readStat(`/proc/${platformPid}/task/${tid}/stat`);
    if (!stat) continue;
    // The main thread's id is the process id (its name is the process's own, not a fixed one).
    const part = tid === String(platformPid) ? "platform" : stat.name === "WorkerThread" ? "workers" : "helpers";
    split[part] += stat.ticks;
  }
  for (const anchor of anchors) split[`anchor:${anchor.kind}`] = readStat(`/proc/${anchor.pid}/stat`)?.ticks ?? 0;
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    const stat = Number(pid) === postmasterPid ? readStat(`/proc/${pid}/stat`) : undefined;
    const child = stat ? undefined : readStat(`/proc/${pid}/stat`);
    if (stat) split.postgres += stat.ticks;
    else if (child?.ppid === postmasterPid) split.postgres += child.ticks;
  }
  split.client = readStat("/proc/self/stat").ticks;
  for (const key of Object.keys(split)) split[key] *= 1000 / CLOCK_TICKS_PER_SECOND;
  return split;
}

/**
 * Per-request CPU (µs) of each part between two `ownCpuSnapshot`s. Backends that ended between the
 * two took their ticks with them, so a part never goes below zero.
 */
export function cpuPerRequest(before, after, requests) {
  return Object.fromEntries(Object.keys(after).map((key) => [key, Math.max(0, ((after[key] - (before[key] ?? 0)) * 1000) / requests)]));
}

/** CPU time (ms) a process's main thread has consumed so far (Linux, from /proc). */
export function mainThreadCpuMs(pid) {
  return ((readStat(`/proc/${pid}/task/${pid}/stat`)?.ticks ?? 0) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Resident set size (MiB) of a process, from /proc. */
export function rssMiB(pid) {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kib) / 1024;
}

/** Name, parent pid and utime+stime ticks from a /proc stat file; undefined when it is gone. */
function readStat(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined; // the process or thread ended between listing and reading
  }
  const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
  // fields[0] is field 3 (state): ppid is field 4, utime and stime fields 14 and 15.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { name, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** The child: serves one anchor and prints `{"port": N}` once it listens. */
async function serve(kind) {
  const handler = kind === "http" ? fixedBody(process.env.ANCHOR_BODY) : kind === "pg" ? datasetRow(process.env.ANCHOR_DATABASE_URL) : undefined;
  if (!handler) throw new Error(`unknown anchor '${kind}' (http or pg)`);
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  process.once("SIGTERM", () => process.exit(0));
}

function fixedBody(body) {
  const bytes = Buffer.from(body || "{}");
  return (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json", "content-length": bytes.length });
    res.end(bytes);
  };
}

function datasetRow(databaseUrl) {
  const { Pool } = require("pg");
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  return (req, res) => {
    req.resume();
    pool.query({ name: "anchor_dataset_by_id", text: DATASET_BY_ID, values: [req.url.slice(1)] }).then(
      ({ rows }) => {
        const body = rows[0] ? JSON.stringify({ data: rows[0] }) : '{"error":{"message":"not found"}}';
        res.writeHead(rows[0] ? 200 : 404, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      },
      (error) => {
        res.writeHead(500).end(String(error.message));
      },
    );
  };
}

if (process.argv[2] === "serve") await serve(process.argv[3]);
