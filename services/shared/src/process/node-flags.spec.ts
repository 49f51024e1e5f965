import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { missingPlatformFlags, PLATFORM_NODE_FLAGS } from "./node-flags";

// The relaunch runs in a Node child that loads this module's source (Node 24 runs TypeScript by
// erasing types), allocates short-lived objects as a busy service does and prints what it runs with.
const MODULE = path.join(__dirname, "node-flags.ts");
const CHILD = `const { relaunchWithPlatformFlags } = await import(process.argv[1]);
relaunchWithPlatformFlags();
const v8 = await import("node:v8");
let kept = [];
for (let round = 0; round < 40; round++) {
  kept.push(Array.from({ length: 200_000 }, (_, i) => ({ i, text: "x" + i })));
  if (kept.length > 3) kept.shift();
}
const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
console.log(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, newSpaceMiB: newSpace.space_size / 1048576 }));`;

/** Runs CHILD with `nodeArgs` before it; resolves the spawned pid and what the child printed. */
async function runChild(nodeArgs: string[], env: NodeJS.ProcessEnv = {}): Promise<{ spawnedPid: number; pid: number; execArgv: string[]; newSpaceMiB: number }> {
  const child = spawn(process.execPath, [...nodeArgs, "--no-warnings", "--input-type=module", "-e", CHILD, MODULE], { env: { ...process.env, NODE_OPTIONS: "", ...env }, stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  expect(code).toBe(0);
  return { spawnedPid: child.pid!, ...JSON.parse(output) };
}

test("a process started without the flags is replaced in place by one running with them, and V8 honours them", async () => {
  const run = await runChild([]);
  expect(run.pid).toBe(run.spawnedPid);
  expect(run.execArgv).toEqual(expect.arrayContaining([...PLATFORM_NODE_FLAGS]));
  // Two semi-spaces of at most 16 MiB; without the flag this load grows the new space to 128 MiB.
  expect(run.newSpaceMiB).toBeLessThanOrEqual(32);
});

test("an operator's own choice of the option is kept, on the command line or in NODE_OPTIONS", async () => {
  const own = await runChild(["--max-semi-space-size=64"]);
  expect(own.execArgv.filter((arg) => arg.startsWith("--max-semi-space-size"))).toEqual(["--max-semi-space-size=64"]);
  const viaEnvironment = await runChild([], { NODE_OPTIONS: "--max_semi_space_size=8" });
  expect(viaEnvironment.execArgv.some((arg) => arg.startsWith("--max-semi-space-size"))).toBe(false);
  expect(viaEnvironment.newSpaceMiB).toBeLessThanOrEqual(16);
});

test("missingPlatformFlags leaves out the options already chosen, in either spelling", () => {
  expect(missingPlatformFlags([], "")).toEqual([...PLATFORM_NODE_FLAGS]);
  expect(missingPlatformFlags(["--enable-source-maps"], "--enable-source-maps")).toEqual([...PLATFORM_NODE_FLAGS]);
  expect(missingPlatformFlags(["--max-semi-space-size=4"], "")).toEqual([]);
  expect(missingPlatformFlags([], "--enable-source-maps --max_semi_space_size=4")).toEqual([]);
});

// Every process the platform runs as: the flags reach it only through this first import.
const ENTRY_POINTS = [
  "services/embedded/src/main.ts",
  "gateway/src/main.ts",
  "services/admin/src/main.ts",
  "services/data/src/main.ts",
  "services/compute/src/main.ts",
  "services/assistant/src/main.ts",
  "services/registry/src/main.ts",
  "runner/src/main.ts",
  "services/object-store/src/main.ts",
];

test.each(ENTRY_POINTS)("%s imports the flags before anything else", (entryPoint) => {
  const source = readFileSync(path.join(__dirname, "../../../..", entryPoint), "utf8");
  const firstImport = /^import .*$/m.exec(source)?.[0];
  expect(firstImport).toBe('import "@hangar/shared/node-flags";');
});
