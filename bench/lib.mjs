// Helpers shared by the benchmarks: the platform as `npm start` runs it, JSON over HTTP, percentiles.
import "./pinned-node.mjs";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { S3Client } = require("@aws-sdk/client-s3");

/**
 * Starts `services/embedded/dist/main.js` with `env` and resolves once its gateway is up, with the
 * child and the services' RPC URLs (read from the "services listening" log line, which needs
 * LOG_LEVEL info or lower; undefined otherwise). `BENCH_NODE_ARGS` adds Node flags to the platform
 * process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the gateway and services threads;
 * `BENCH_PLATFORM_LOG=1` echoes the platform's log lines to stderr.
 */
export function startPlatformProcess(env) {
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  // A variable set to undefined in `env` is left out, so a benchmark can drop one this shell exports.
  const childEnv = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== undefined));
  const child = spawn(process.execPath, [...nodeArgs, "services/embedded/dist/main.js"], { env: childEnv, stdio: ["ignore", "pipe", "inherit"] });
  const wantsServices = !["warn", "error", "fatal", "silent"].includes(env.LOG_LEVEL ?? "info");
  return new Promise((resolve, reject) => {
    let services;
    let running = false;
    let buffer = "";
    child.once("exit", (code, signal) => reject(new Error(`platform exited (${code ?? signal})`)));
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      for (const line of buffer.split("\n").slice(0, -1)) {
        if (process.env.BENCH_PLATFORM_LOG === "1") console.error(line);
        if (line.includes('"services listening"')) services = JSON.parse(line).services;
        if (line.startsWith("Hangar is running")) running = true;
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
      // Pino and the banner write independently, so either may come first.
      if (running && (services || !wantsServices)) resolve({ child, services });
    });
  });
}

/** Stops a platform started by startPlatformProcess. */
export async function stopPlatformProcess(platform) {
  platform.child.kill("SIGTERM");
  await new Promise((resolve) => platform.child.once("exit", resolve));
}

/** One JSON request with a bearer token (and `extraHeaders`); resolves the parsed body of a 200, rejects anything else. */
export function httpJson(agent, method, url, token, body, extraHeaders = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { authorization: `Bearer ${token}`, ...extraHeaders, ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}) };
    const req = http.request(url, { method, agent, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode !== 200) return reject(new Error(`${method} ${url}: ${res.statusCode} ${text}`));
        resolve(JSON.parse(text));
      });
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** The p-th percentile of ascending-sorted `sorted`. */
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** An S3 client for upload credentials as the platform returns them (with the endpoint to use). */
export function s3ClientFor(creds) {
  return new S3Client({
    region: creds.region,
    endpoint: creds.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: creds.access_key_id, secretAccessKey: creds.secret_access_key, sessionToken: creds.session_token },
  });
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * CPU time (ms) consumed so far, split by who spent it: the platform process's gateway thread
 * (MainThread), services thread (WorkerThread) and helper threads (V8's GC and compiler workers,
 * libuv's pool), the benchmark's own PostgreSQL processes (those descending from this process: the
 * platform's embedded server, or one the benchmark started; never another run's on a shared
 * machine), and this process (the load generator) with its waited-for children (wrk). Linux only:
 * read from /proc. Subtract two snapshots with `cpuSpent`.
 */
export function cpuSnapshot(platformPid) {
  const split = { gateway: 0, services: 0, helpers: 0, postgres: 0, client: 0 };
  for (const tid of readdirSync(`/proc/${platformPid}/task`)) {
    const { name, ticks } = readStat(`/proc/${platformPid}/task/${tid}/stat`);
    const part = name === "MainThread" ? "gateway" : name === "WorkerThread" ? "services" : "helpers";
    split[part] += ticks;
  }
  for (const pid of descendantPids(process.pid)) {
    const stat = readStat(`/proc/${pid}/stat`);
    if (stat?.name === "postgres") split.postgres += stat.ticks;
  }
  const own = readStat("/proc/self/stat", true);
  split.client = own.ticks;
  for (const key of Object.keys(split)) split[key] *= 1000 / CLOCK_TICKS_PER_SECOND;
  return split;
}

/** Per-request CPU (µs) of each part between two snapshots. */
export function cpuSpent(before, after, requests) {
  return Object.fromEntries(Object.keys(before).map((key) => [key, ((after[key] - before[key]) * 1000) / requests]));
}

/** CPU time (ms) a whole process (every thread) has consumed so far; Linux only: read from /proc. */
export function processCpuMs(pid) {
  return (readStat(`/proc/${pid}/stat`).ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Every live process below `root` in the process tree (children, their children, ...); Linux only. */
export function descendantPids(root) {
  const children = new Map();
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    const text = readText(`/proc/${pid}/stat`);
    if (text === undefined) continue;
    const parent = Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(pid)]);
  }
  const found = [];
  for (let queue = [root]; queue.length > 0; ) {
    const next = children.get(queue.pop()) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/**
 * Memory (MiB) of the benchmark's platform: the platform process's resident set (VmRSS, what `ps`
 * and the issue report) and the proportional set (Pss) of its PostgreSQL processes, whose shared
 * buffers would be counted once per backend in a sum of their RSS.
 */
export function memorySnapshot(platformPid) {
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readText(`/proc/${platformPid}/status`) ?? "")?.[1] ?? NaN);
  let postgresPssKb = 0;
  for (const pid of descendantPids(process.pid)) {
    if (readStat(`/proc/${pid}/stat`)?.name !== "postgres") continue;
    postgresPssKb += Number(/^Pss:\s+(\d+)/m.exec(readText(`/proc/${pid}/smaps_rollup`) ?? "")?.[1] ?? 0);
  }
  return { platformRss: rssKb / 1024, postgresPss: postgresPssKb / 1024 };
}

/** A file's text, or undefined when it vanished (a process that ended between listing and reading). */
function readText(path) {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Name and utime+stime ticks from a /proc stat file (with waited-for children's when asked). */
function readStat(path, withChildren = false) {
  const text = readText(path);
  if (text === undefined) return undefined;
  const name = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state): utime, stime, cutime, cstime are fields 14 to 17.
  const ticks = Number(fields[11]) + Number(fields[12]) + (withChildren ? Number(fields[13]) + Number(fields[14]) : 0);
  return { name, ticks };
}

/**
 * A load generator's HTTP/1.1 client, as lean as wrk's: `connections` keep-alive sockets, requests
 * written as one string, responses read by content-length (the gateway always sends one). On a
 * machine shared with the platform, every microsecond the client spends is taken from the server;
 * Node's general-purpose clients spend several times more per request than this.
 */
export function createLeanHttpClient(baseUrl, connections) {
  const { hostname, port } = new URL(baseUrl);
  const idle = Array.from({ length: connections }, () => openLeanConnection(hostname, Number(port)));
  return {
    /** Resolves `{ status, body }` (body as text). */
    async request(method, path, headers, body) {
      const connection = idle.pop() ?? openLeanConnection(hostname, Number(port));
      try {
        return await connection.request(method, path, headers, body);
      } finally {
        idle.push(connection);
      }
    },
    close() {
      for (const connection of idle) connection.socket.destroy();
    },
  };
}

function openLeanConnection(host, port) {
  const socket = net.connect(port, host);
  socket.setNoDelay(true);
  let buffer = Buffer.alloc(0);
  let waiting;
  const parse = () => {
    const headerEnd = buffer.indexOf("\r\n\r\n");
    if (headerEnd < 0 || !waiting) return;
    const head = buffer.toString("latin1", 0, headerEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
    if (length === undefined) return waiting.reject(new Error(`response without content-length: ${head}`));
    const end = headerEnd + 4 + Number(length);
    if (buffer.length < end) return;
    const response = { status: Number(head.slice(9, 12)), body: buffer.toString("utf8", headerEnd + 4, end) };
    buffer = buffer.subarray(end);
    const { resolve } = waiting;
    waiting = undefined;
    resolve(response);
  };
  socket.on("data", (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    parse();
  });
  socket.on("error", (error) => waiting?.reject(error));
  return {
    socket,
    request(method, path, headers, body) {
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        let text = `${method} ${path} HTTP/1.1\r\nhost: ${host}:${port}\r\n`;
        for (const [name, value] of Object.entries(headers)) text += `${name}: ${value}\r\n`;
        if (body !== undefined) text += `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
        socket.write(`${text}\r\n${body ?? ""}`);
      });
    },
  };
}

/**
 * Runs `call` from `concurrency` loops back to back for `ms` (a closed loop); returns the sorted
 * latencies in ms, the count of failed calls (the first one is printed) and the elapsed time.
 */
export async function closedLoop(call, ms, concurrency) {
  const latencies = [];
  let errors = 0;
  const end = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < end) {
      const start = performance.now();
      try {
        await call();
        latencies.push(performance.now() - start);
      } catch (error) {
        if (errors++ === 0) console.error(error);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies: latencies.sort((a, b) => a - b), errors, elapsed: performance.now() - started };
}
