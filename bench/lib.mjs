// Helpers shared by the benchmarks: the platform as `npm start` runs it, JSON over HTTP, percentiles.
import { spawn } from "node:child_process";
import http from "node:http";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { S3Client } = require("@aws-sdk/client-s3");

/**
 * Starts `services/embedded/dist/main.js` with `env` and resolves once its gateway is up, with the
 * child and the services' RPC URLs (read from the "services listening" log line, which needs
 * LOG_LEVEL info or lower; undefined otherwise).
 */
export function startPlatformProcess(env) {
  const child = spawn(process.execPath, ["services/embedded/dist/main.js"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const wantsServices = !["warn", "error", "fatal", "silent"].includes(env.LOG_LEVEL ?? "info");
  return new Promise((resolve, reject) => {
    let services;
    let running = false;
    let buffer = "";
    child.once("exit", (code, signal) => reject(new Error(`platform exited (${code ?? signal})`)));
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      for (const line of buffer.split("\n").slice(0, -1)) {
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

/** One JSON request with a bearer token; resolves the parsed body of a 200, rejects anything else. */
export function httpJson(agent, method, url, token, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { authorization: `Bearer ${token}`, ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}) };
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
