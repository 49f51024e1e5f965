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
// The SDK block imports the SDK and uploads through boto3: seconds on an idle machine, a minute or more on a loaded one.
const BLOCKS_TIMEOUT_MS = 240_000;

let dataDir: string;
let platform: ChildProcess | undefined;

afterAll(async () => {
  platform?.kill("SIGTERM");
  if (platform && platform.exitCode === null) await new Promise((resolve) => platform!.once("exit", resolve));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** The shell blocks that follow the README's CI markers, in order: the admin's first steps, then the SDK's. */
function readmeBlocks(): string[] {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  return readme
    .split(MARKER)
    .slice(1)
    .map((after) => {
      const match = /```sh\n([\s\S]*?)```/.exec(after);
      if (!match) throw new Error("no ```sh block follows one of the README's CI markers");
      return match[1]!;
    });
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

/** Runs one README block under `bash -eu` with only what the banner said to export (no PORT, no test variables). */
async function runAsUserWould(block: string, exported: Record<string, string>, extraPath = ""): Promise<string> {
  const { PORT: _port, DATABASE_URL: _db, KAFKA_BROKERS: _kafka, AWS_ENDPOINT_URL_S3: _s3, ...shell } = process.env;
  const home = await mkdtemp(path.join(tmpdir(), "hangar-readme-home-"));
  try {
    const env = { ...shell, HOME: home, PATH: `${extraPath}${shell.PATH ?? ""}`, ...exported };
    const { stdout } = await promisify(execFile)("bash", ["-eu", "-o", "pipefail", "-c", block], { cwd: ROOT, env, timeout: BLOCKS_TIMEOUT_MS });
    return stdout;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

test("the README's first-hour commands and its SDK quick start run as written against a fresh npm start on a non-default port", async () => {
  const exported = await startAsUserWould();
  expect(Object.keys(exported).sort()).toEqual(["HANGAR_ORG", "HANGAR_S3_ENDPOINT", "HANGAR_TOKEN", "HANGAR_URL"]);
  expect(exported.HANGAR_URL).not.toContain(":8080");
  const blocks = readmeBlocks();
  expect(blocks).toHaveLength(2);

  // One shell, as a user pastes the blocks one after the other; the SDK is the one the test run
  // installed (the README's venv, activated). The last line reports where the datasets went.
  const python = process.env.HANGAR_TEST_ROBOTO_PYTHON;
  if (!python) throw new Error("HANGAR_TEST_ROBOTO_PYTHON is not set: the global setup installs the SDK");
  const script = `${blocks.join("\n")}\necho "team-a=$ORG_A_ID"\n`;
  const printed = await runAsUserWould(script, exported, `${path.dirname(python)}:`);
  expect(printed).toContain('"run-1"');
  expect(printed).toContain("['README.md']");
  const teamA = /^team-a=(\S+)$/m.exec(printed)?.[1];
  expect(teamA).toMatch(/\S/);

  // Each dataset is in the org the README meant, once.
  expect(await datasetsNamed(exported.HANGAR_ORG!, "run-1")).toEqual([["run-1", exported.HANGAR_ORG]]);
  expect(await datasetsNamed(teamA!, "first-log")).toEqual([["first-log", teamA]]);
  expect(await datasetsNamed(teamA!, "from-the-cli")).toEqual([["from-the-cli", teamA]]);

  async function datasetsNamed(orgId: string, name: string) {
    const admin = apiClient(exported.HANGAR_URL!, exported.HANGAR_TOKEN!, { "X-Service-Org-Id": orgId });
    const found = await admin.post("/v1/datasets/query", { condition: { field: "name", comparator: "Equals", value: name } });
    expect(found.status).toBe(200);
    return found.body.data.items.map((d: { name: string; org_id: string }) => [d.name, d.org_id]);
  }
}, START_TIMEOUT_MS + BLOCKS_TIMEOUT_MS + 30_000);
