import { spawn } from "node:child_process";
import path from "node:path";
import { GROWTH_BYTES, IDLE_UTILIZATION, idleCollectionDue } from "./idle-collection";

const MiB = 1024 * 1024;

test("a check collects only when the loop was idle and the process grew since the last collection", () => {
  const baseline = 200 * MiB;
  expect(idleCollectionDue({ utilization: 0, rss: baseline + GROWTH_BYTES + 1 }, baseline)).toBe(true);
  expect(idleCollectionDue({ utilization: IDLE_UTILIZATION / 2, rss: 500 * MiB }, baseline)).toBe(true);
  // Working: never, whatever the size.
  expect(idleCollectionDue({ utilization: IDLE_UTILIZATION, rss: 500 * MiB }, baseline)).toBe(false);
  expect(idleCollectionDue({ utilization: 0.5, rss: 500 * MiB }, baseline)).toBe(false);
  // Idle but not grown (already collected, or live data): not again.
  expect(idleCollectionDue({ utilization: 0, rss: baseline + GROWTH_BYTES }, baseline)).toBe(false);
});

// A Node child loads this module's source (Node 24 runs TypeScript by erasing types), grows by
// allocating short-lived objects as a busy service does, then goes idle: its resident set comes
// back. Without the idle collection it stays where the load left it (measured: about 700 MiB).
const MODULE = path.join(__dirname, "idle-collection.ts");
const CHILD = `const { startIdleCollection } = await import(process.argv[1]);
const stop = startIdleCollection({ checkMs: 300 });
const mib = () => Math.round(process.memoryUsage.rss() / 1048576);
let kept = [];
for (let round = 0; round < 30; round++) {
  kept.push(Array.from({ length: 60_000 }, (_, i) => ({ id: "x" + i + round, values: new Array(20).fill(i) })));
  if (kept.length > 6) kept.shift();
  await new Promise((resolve) => setImmediate(resolve));
}
kept = [];
const loaded = mib();
await new Promise((resolve) => setTimeout(resolve, 2_000));
stop();
console.log(JSON.stringify({ loaded, idle: mib() }));`;

test("a process that grew under work gives the memory back once idle", async () => {
  const child = spawn(process.execPath, ["--max-semi-space-size=16", "--no-warnings", "--input-type=module", "-e", CHILD, MODULE], {
    env: { ...process.env, NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
  const { loaded, idle } = JSON.parse(output) as { loaded: number; idle: number };
  expect(loaded).toBeGreaterThan(300);
  expect(idle).toBeLessThan(loaded / 2);
});
