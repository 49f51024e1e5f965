import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { apiClient, waitFor, type ApiClient } from "@hangar/test-harness";

// kill -9 of the single-process platform (`npm start`, issue 9 finding 6): its embedded PostgreSQL
// and a running action's process die with it, the next start comes up by itself with the data that
// was acknowledged, a server left behind by an earlier run (its watchdog killed too) is stopped on
// the next start while a running platform's is never touched, another program on the PostgreSQL port gives a message that names it, and a
// PostgreSQL that exits during start-up fails the start with its own words (not `undefined`). The
// platform runs as `node services/embedded/dist/main.js`, as `npm start` runs it (after the build).

const MAIN = path.resolve(__dirname, "../../services/embedded/dist/main.js");
const TOKEN = "hgr_embedded_restart_test_token";
const START_TIMEOUT_MS = 120_000;

let dataDir: string;
let ports: { gateway: number; objectStore: number; postgres: number };
let running: ChildProcess | undefined;
let client: ApiClient;

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  dataDir = await mkdtemp(path.join(tmpdir(), "hangar-embedded-"));
  // PostgreSQL runs as the `postgres` user when the tests run as root: it must reach its directory.
  await chmod(dataDir, 0o755);
  ports = { gateway: await freePort(), objectStore: await freePort(), postgres: await freePort() };
  client = apiClient(`http://127.0.0.1:${ports.gateway}`, TOKEN);
});
afterAll(async () => {
  running?.kill("SIGKILL");
  // Whatever a failed test left: the server, and the action (a retry of it may have started).
  killIfRuns(postmasterPid(), dataDir);
  killIfRuns(probePid(), "process.env.PROBE");
  await rm(dataDir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Kills `pid` if it still runs a command line containing `marker` (not a process that reused the pid). */
function killIfRuns(pid: number | undefined, marker: string): void {
  if (pid === undefined || !isAlive(pid)) return;
  const args = execFileSync("ps", ["-o", "args=", "-p", String(pid)], { encoding: "utf8" });
  if (args.includes(marker)) process.kill(pid, "SIGKILL");
}

function probePid(): number | undefined {
  const probe = path.join(dataDir, "action.pid");
  return existsSync(probe) ? Number(readFileSync(probe, "utf8")) : undefined;
}

function postmasterPid(dir = dataDir): number | undefined {
  const lock = path.join(dir, "postgres", "postmaster.pid");
  return existsSync(lock) ? Number(readFileSync(lock, "utf8").split("\n")[0]) : undefined;
}

/** Starts the platform as `npm start` does, without the test run's shared servers, and waits for its banner. */
function startPlatform(env: Record<string, string> = {}, dir = dataDir): { child: ChildProcess; started: Promise<void>; output: () => string } {
  const { DATABASE_URL: _db, KAFKA_BROKERS: _kafka, ...inherited } = process.env;
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...inherited,
      DATA_DIR: dir,
      PORT: String(ports.gateway),
      OBJECT_STORE_PORT: String(ports.objectStore),
      EMBEDDED_POSTGRES_PORT: String(ports.postgres),
      BOOTSTRAP_TOKEN: TOKEN,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const started = new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => output.includes("Hangar is running") && (clearInterval(poll), resolve()), 50);
    child.once("exit", (code, signal) => (clearInterval(poll), reject(new Error(`the platform exited (${code ?? signal}):\n${output}`))));
  });
  started.catch(() => undefined);
  return { child, started, output: () => output };
}

async function restart(): Promise<void> {
  const platform = startPlatform();
  running = platform.child;
  await platform.started;
}

/** The pid of the platform's watchdog over `target`: its child shell waiting on a pipe to signal `target`. */
function watchdogOver(pid: number, target: number): number | undefined {
  const lines = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(pid)], { encoding: "utf8" }).trim().split("\n");
  const line = lines.find((l) => l.includes("while read") && l.trim().endsWith(` ${target}`));
  return line === undefined ? undefined : Number(line.trim().split(/\s+/)[0]);
}

/** Records its pid in PROBE, then sleeps far longer than the test. */
const SLEEPER = `require("node:fs").writeFileSync(process.env.PROBE, String(process.pid)); setInterval(() => undefined, 1000);`;

test("kill -9 mid-request takes PostgreSQL and a running action with it, and the next start serves the acknowledged data", async () => {
  await restart();
  const kept = (await client.post("/v1/datasets", { name: "kept" })).body.data.dataset_id as string;
  const action = { name: "sleeper", container_parameters: { command: ["node", "-e", SLEEPER], env_vars: { PROBE: path.join(dataDir, "action.pid") } } };
  expect((await client.post("/v1/actions", action)).status).toBe(200);
  const invoked = await client.post("/v1/actions/sleeper/invoke", { data_source_id: kept, data_source_type: "Dataset", input_data: [], invocation_source: "Manual" });
  expect(invoked.status).toBe(200);
  const actionPid = await waitFor("the action to run", async () => probePid());
  const postgresPid = postmasterPid()!;

  const inFlight = Array.from({ length: 20 }, (_, i) => client.post("/v1/datasets", { name: `in-flight-${i}` }).catch(() => undefined));
  await new Promise((resolve) => setTimeout(resolve, 30));
  running!.kill("SIGKILL");
  const answered = (await Promise.all(inFlight)).filter((res) => res?.status === 200).map((res) => res!.body.data.dataset_id as string);

  await waitFor("PostgreSQL and the action to end with the platform", async () => (!isAlive(postgresPid) && !isAlive(actionPid) ? true : undefined), 15_000);
  await restart();
  expect((await client.get(`/v1/datasets/${kept}`)).body.data.name).toBe("kept");
  for (const id of answered) expect((await client.get(`/v1/datasets/${id}`)).status).toBe(200);
}, START_TIMEOUT_MS * 2);

test("a PostgreSQL left running by a killed run whose watchdog died too is stopped by the next start", async () => {
  const pid = running!.pid!;
  const postgresPid = postmasterPid()!;
  const watchdog = watchdogOver(pid, postgresPid);
  expect(watchdog).toEqual(expect.any(Number));
  for (const victim of [pid, watchdog!]) process.kill(victim, "SIGKILL");
  await new Promise((resolve) => running!.once("exit", resolve));
  expect(isAlive(postgresPid)).toBe(true);

  await restart();
  expect(isAlive(postgresPid)).toBe(false);
  expect(postmasterPid()).not.toBe(postgresPid);
  expect((await client.get("/v1/users/whoami")).status).toBe(200);
}, START_TIMEOUT_MS);

test("a second start on the DATA_DIR of a running platform fails, and leaves the running one alone", async () => {
  const second = startPlatform({ PORT: String(await freePort()), OBJECT_STORE_PORT: String(await freePort()) });
  await expect(second.started).rejects.toThrow(`is in use by the PostgreSQL (pid ${postmasterPid()}) of another running Hangar (pid ${running!.pid})`);
  expect((await client.get("/v1/users/whoami")).status).toBe(200);
}, START_TIMEOUT_MS);

test("another program on the PostgreSQL port fails the start with a message naming the port and its variable", async () => {
  running!.kill("SIGTERM");
  await new Promise((resolve) => running!.once("exit", resolve));
  const holder: Server = createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => holder.listen(port, "127.0.0.1", resolve));
  const otherDir = await mkdtemp(path.join(tmpdir(), "hangar-embedded-port-"));
  try {
    await chmod(otherDir, 0o755);
    const platform = startPlatform({ EMBEDDED_POSTGRES_PORT: String(port) }, otherDir);
    await expect(platform.started).rejects.toThrow(`port ${port} on 127.0.0.1 is in use by another program`);
    expect(platform.output()).toContain("EMBEDDED_POSTGRES_PORT");
    expect(platform.output()).not.toContain("undefined");
  } finally {
    holder.close();
    await rm(otherDir, { recursive: true, force: true });
  }
}, START_TIMEOUT_MS);

test("a PostgreSQL that exits during start-up fails the start with its own log lines", async () => {
  // The previous test stopped the platform; its cluster is initialised and stopped cleanly.
  appendFileSync(path.join(dataDir, "postgres", "postgresql.conf"), "\nhangar_no_such_setting = on\n");
  const platform = startPlatform();
  await expect(platform.started).rejects.toThrow("the embedded PostgreSQL exited during start-up");
  expect(platform.output()).toContain('unrecognized configuration parameter "hangar_no_such_setting"');
}, START_TIMEOUT_MS);
