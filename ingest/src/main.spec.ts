// The CLI the built-in ingestion action runs, as it runs it: `node ingest/dist/main.js` after the build.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeFixture } from "./mcap.fixture";

const MAIN = path.resolve(__dirname, "../dist/main.js");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "ingest-cli-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
}

test("prints the manifest as JSON, nanosecond times as exact integers, and leaves the derived files", async () => {
  const input = path.join(dir, "log.mcap");
  writeFileSync(input, (await writeFixture("indexed")).bytes);
  const result = run(input, path.join(dir, "out"));
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  const manifest = JSON.parse(result.stdout) as { topics: { topic_name: string; derived_file: string }[] };
  expect(manifest.topics.map((topic) => topic.topic_name)).toEqual(["/pose", "/weather", "/reading"]);
  expect(result.stdout).toContain('"start_time": 1700000000000000000');
  expect(result.stdout).toContain('"max_file_timestamp_ns": 1700000000049000000');
  expect(readdirSync(path.join(dir, "out")).sort()).toEqual(manifest.topics.map((topic) => topic.derived_file).sort());
});

test("a broken file exits 1 with the reason on stderr and no output directory", async () => {
  const input = path.join(dir, "log.mcap");
  const bytes = (await writeFixture("indexed")).bytes;
  writeFileSync(input, bytes.subarray(0, 200));
  const result = run(input, path.join(dir, "out"));
  expect(result.status).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(/^ingestion failed: \w+ record at offset \d+: truncated/);
  expect(existsSync(path.join(dir, "out"))).toBe(false);
  expect(readdirSync(dir)).toEqual(["log.mcap"]);
});

test("wrong arguments exit 2 with the usage", () => {
  const result = run("only-one-argument.mcap");
  expect(result.status).toBe(2);
  expect(result.stderr).toBe("usage: main.js <file.mcap> <out-dir>\n");
});
