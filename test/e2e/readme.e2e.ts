import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { apiClient, freePort } from "@hangar/test-harness";

// The README's first-hour path, run as written (issue 15): `npm start` on a fresh data directory
// and a non-default PORT, the `export` lines its banner prints, then the README's block of
// commands under `bash -eu`. A step that fails (a 400 asking for the org header, hangarctl calling
// the wrong port) fails the test, so the README cannot drift from what works.

const ROOT = path.resolve(__dirname, "../..");
const MAIN = path.join(ROOT, "services/embedded/dist/main.js");
const MARKER = "<!-- ci: test/e2e/readme.e2e.ts runs this block";
const START_TIMEOUT_MS = 120_000;

let dataDir: string;
let platform: ChildProcess | undefined;

afterAll(async () => {
  platform?.kill("SIGTERM");
  if (platform && platform.exitCode === null) await new Promise((resolve) => platform!.once("exit", resolve));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The shell block that follows the README's CI marker. */
function readmeBlock(): string {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error("the README's first-hour block lost its CI marker");
  const match = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!match) throw new Error("no ```sh block follows the README's CI marker");
  return match[1]!;
}

/** Starts the platform as `npm start` runs it and resolves with the variables its banner tells the user to export. */
async function startAsUserWould(): Promise<Record<string, string>> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  dataDir = await mkdtemp(path.join(tmpdir(), "hangar-readme-"));
  // PostgreSQL runs as the `postgres` user when the tests run as root: it must reach its directory.
  await chmod(dataDir, 0o755);
  const { DATABASE_URL: _db, KAFKA_BROKERS: _kafka, BOOTSTRAP_TOKEN: _token, ...inherited } = process.env;
  const env = {
    ...inherited,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    OBJECT_STORE_PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    LOG_LEVEL: "warn",
  };
  platform = spawn(process.execPath, [MAIN], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  platform.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  platform.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
    const poll = setInterval(() => /export HANGAR_ORG=\S+\n/.test(output) && (clearInterval(poll), clearTimeout(timer), resolve()), 50);
    platform!.once("exit", (code, signal) => (clearInterval(poll), clearTimeout(timer), reject(new Error(`the platform exited (${code ?? signal}):\n${output}`))));
  });
  const exported = Object.fromEntries([...output.matchAll(/^\s*export (HANGAR_\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  return exported;
}

test("the README's first-hour commands run as written against a fresh npm start on a non-default port", async () => {
  const exported = await startAsUserWould();
  expect(Object.keys(exported).sort()).toEqual(["HANGAR_ORG", "HANGAR_TOKEN", "HANGAR_URL"]);
  expect(exported.HANGAR_URL).not.toContain(":8080");

  // No PORT in the user's shell: only what the banner said to export.
  const { PORT: _port, HANGAR_URL: _url, HANGAR_TOKEN: _token, HANGAR_ORG: _org, ...shell } = process.env;
  const run = await promisify(execFile)("bash", ["-eu", "-o", "pipefail", "-c", readmeBlock()], {
    cwd: ROOT,
    env: { ...shell, ...exported },
    timeout: 60_000,
  });
  expect(run.stdout).toContain('"run-1"');

  // The dataset is in the org the README named, once.
  const admin = apiClient(exported.HANGAR_URL!, exported.HANGAR_TOKEN!, { "X-Service-Org-Id": exported.HANGAR_ORG! });
  const found = await admin.post("/v1/datasets/query", { condition: { field: "name", comparator: "Equals", value: "run-1" } });
  expect(found.status).toBe(200);
  expect(found.body.data.items.map((d: { name: string; org_id: string }) => [d.name, d.org_id])).toEqual([["run-1", exported.HANGAR_ORG]]);
});
