import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { waitFor } from "@hangar/test-harness";

// The watchdog in a parent that is then killed with SIGKILL (no exit handler runs): the parent is a
// Node child of the test that loads this module's source (Node 24 runs TypeScript by erasing types).

const MODULE = path.join(__dirname, "parent-watchdog.ts");

/** Starts `sleep` in a process group of its own under a watchdog, prints its pid, and waits to be killed. */
const PARENT = `const { spawn } = await import("node:child_process");
const { killWithParent } = await import(process.argv[1]);
const sleeper = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
killWithParent(-sleeper.pid, "SIGKILL", JSON.parse(process.argv[2]));
console.log(sleeper.pid);
setInterval(() => undefined, 1000);`;

let dir: string;
beforeAll(async () => (dir = await mkdtemp(path.join(tmpdir(), "hangar-watchdog-"))));
afterAll(() => rm(dir, { recursive: true, force: true }));

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Runs PARENT, kills it with SIGKILL once its sleeper runs, and returns the sleeper's pid. */
async function killParentOf(cleanup: string[]): Promise<number> {
  const parent = spawn(process.execPath, ["--no-warnings", "--input-type=module", "-e", PARENT, MODULE, JSON.stringify(cleanup)], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = await createInterface({ input: parent.stdout! })[Symbol.asyncIterator]().next().then((r) => [r.value as string]);
  const sleeper = Number(line);
  expect(isAlive(sleeper)).toBe(true);
  parent.kill("SIGKILL");
  return sleeper;
}

test("the target's process group gets the signal when its parent dies by SIGKILL", async () => {
  const sleeper = await killParentOf([]);
  await waitFor("the sleeper to die with its parent", async () => (isAlive(sleeper) ? undefined : true));
});

test("the clean-up command runs after the signal", async () => {
  const marker = path.join(dir, "cleaned");
  const sleeper = await killParentOf(["touch", marker]);
  await waitFor("the clean-up", async () => (existsSync(marker) ? true : undefined));
  // Killed before the clean-up ran; gone from the process table once init has reaped it.
  await waitFor("the sleeper to die with its parent", async () => (isAlive(sleeper) ? undefined : true));
});
