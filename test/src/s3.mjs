// Starts a real S3-compatible server (moto, from PyPI) for the tests of the S3 object store, since
// these machines have no Docker. See DESIGN.md, "Test infrastructure on these machines".
import { spawn } from "node:child_process";
import path from "node:path";
import { freePort } from "./ports.mjs";
import { ensureVenv, venvDir } from "./venvs.mjs";

const MOTO_VERSION = "5.2.5"; // keep in step with scripts/install-s3-server.sh
const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

/** The virtualenv that scripts/install-s3-server.sh fills: `$HANGAR_MOTO_VENV` or `<repo>/.cache/moto-venv`. */
export function motoVenv() {
  return venvDir("HANGAR_MOTO_VENV", "moto-venv");
}

// Runs moto's server and exits when its stdin reaches end of file: stop() closes our end, and so
// does the kernel when this Node process dies without running exit handlers (SIGKILL, crash).
const WATCHDOG = `import os, sys, threading
def watch():
    try:
        while sys.stdin.buffer.read(65536):
            pass
    finally:
        os._exit(0)
threading.Thread(target=watch, daemon=True).start()
from moto.server import main
main(sys.argv[1:])`;

/** Installs moto into the cached virtualenv unless the pinned version is there; returns whether it ran. */
function ensureMoto() {
  return ensureVenv({ what: "moto", variable: "HANGAR_MOTO_VENV", name: "moto-venv", marker: `.hangar-moto-${MOTO_VERSION}`, script: "install-s3-server.sh" });
}

/** Resolves once `url` answers HTTP at all, or rejects after `timeoutMs` or when `exited` settles first. */
async function waitForHttp(url, timeoutMs, exited) {
  const deadline = performance.now() + timeoutMs;
  let gone;
  exited.then((how) => (gone = how));
  for (;;) {
    if (gone !== undefined) throw new Error(`moto exited during start-up (${gone})`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      if (performance.now() > deadline) throw new Error(`moto did not answer within ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Starts moto's server (S3, STS and the rest of its services on one port) on a free loopback port,
 * installing it first with scripts/install-s3-server.sh when the cached virtualenv lacks it, and
 * resolves once it answers HTTP. Returns `{ endpoint, accessKeyId, secretAccessKey, region, stop,
 * timings }`; moto accepts any keys. stop() ends the server and waits for it to exit; the server also
 * exits when this process does.
 */
export async function startS3Server() {
  const timings = {};
  let t = performance.now();
  timings.installed = ensureMoto();
  timings.installMs = Math.round(performance.now() - t);

  t = performance.now();
  const port = await freePort();
  const python = path.join(motoVenv(), "bin", "python");
  const child = spawn(python, ["-c", WATCHDOG, "-H", "127.0.0.1", "-p", String(port)], { stdio: ["pipe", "pipe", "pipe"] });
  const output = []; // the last lines moto printed, for errors
  const keep = (chunk) => {
    output.push(...chunk.toString().trimEnd().split("\n"));
    output.splice(0, Math.max(0, output.length - 40));
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ?? code));
    child.once("error", (err) => resolve(err.message)); // could not run python at all
  });
  // A test run that forgets stop() still ends; the closed stdin then ends moto.
  for (const handle of [child, child.stdin, child.stdout, child.stderr]) handle.unref();
  const onExit = () => child.kill("SIGKILL");
  process.once("exit", onExit);

  let stopped;
  const stop = () =>
    (stopped ??= (async () => {
      child.stdin.destroy(); // the watchdog thread ends moto
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
      process.removeListener("exit", onExit);
    })());

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${endpoint}/moto-api/`, START_TIMEOUT_MS, exited);
  } catch (err) {
    await stop();
    throw new Error(`${err.message}; last output:\n${output.join("\n")}`.trimEnd());
  }
  timings.startMs = Math.round(performance.now() - t);
  return { endpoint, accessKeyId: "hangar-test", secretAccessKey: "hangar-test-secret", region: "us-east-1", stop, timings };
}

/**
 * Returns the S3-compatible server in `S3_ENDPOINT` when set (with `S3_ACCESS_KEY_ID`,
 * `S3_SECRET_ACCESS_KEY`, `S3_REGION`; stop does nothing), else starts moto with startS3Server().
 * Lets CI or a developer point the tests at MinIO, Ceph or a running moto.
 */
export async function s3FromEnvOrStart() {
  const { S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION } = process.env;
  if (!S3_ENDPOINT) return startS3Server();
  return {
    endpoint: S3_ENDPOINT.replace(/\/+$/, ""),
    accessKeyId: S3_ACCESS_KEY_ID || "hangar-test",
    secretAccessKey: S3_SECRET_ACCESS_KEY || "hangar-test-secret",
    region: S3_REGION || "us-east-1",
    stop: async () => {},
  };
}
