import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import type { Logger } from "@hangar/shared";

/** How long a stale postmaster gets for its fast shutdown (it usually takes well under a second). */
const SHUTDOWN_WAIT_MS = 30_000;

/**
 * Clears what a killed earlier run left in `dataDir`: a postmaster still running there whose parent
 * is gone is shut down (SIGINT: fast shutdown, its data kept); one whose Node parent still runs
 * belongs to another live platform and fails this start instead. A lock file naming a live process that is not a
 * PostgreSQL server of this directory (its pid reused) is removed, since PostgreSQL would take it
 * for a running server and refuse to start. A lock of a process that is gone PostgreSQL clears itself.
 */
export async function stopStalePostmaster(dataDir: string, logger: Logger): Promise<void> {
  const lockFile = path.join(dataDir, "postmaster.pid");
  const lock = await readFile(lockFile, "utf8").catch(() => undefined);
  const pid = Number(lock?.split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  if (!(await isPostmasterOf(pid, dataDir))) {
    logger.warn({ pid, lockFile }, "removing a stale PostgreSQL lock file whose pid another program now has");
    await rm(lockFile, { force: true });
    return;
  }
  const owner = await liveNodeParent(pid);
  if (owner !== undefined) {
    throw new Error(`${dataDir} is in use by the PostgreSQL (pid ${pid}) of another running Hangar (pid ${owner}): stop it first, or give this one another DATA_DIR`);
  }
  logger.warn({ pid, dataDir }, "stopping the embedded PostgreSQL an earlier run left running");
  process.kill(pid, "SIGINT");
  if (!(await exited(pid, SHUTDOWN_WAIT_MS))) {
    throw new Error(`the PostgreSQL server an earlier run left in ${dataDir} (pid ${pid}) did not stop within ${SHUTDOWN_WAIT_MS / 1000} s; stop it and start again`);
  }
}

/**
 * Fails with a message saying what to do when another program listens on `port`: PostgreSQL would
 * only exit, and the reason would be buried in its log.
 */
export async function ensurePortFree(port: number, variable: string): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`port ${port} on 127.0.0.1 is in use by another program, so the embedded PostgreSQL cannot listen there: stop that program or choose another port with ${variable}`)
          : error,
      ),
    );
    server.listen(port, "127.0.0.1", () => server.close(() => resolve()));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, under another user (PostgreSQL runs as `postgres` when started by root).
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** `ps -o <field>= -p <pid>` (ps works alike on Linux and macOS); empty when the process is gone. */
async function ps(field: "args" | "ppid", pid: number): Promise<string> {
  const { stdout } = await promisify(execFile)("ps", ["-o", `${field}=`, "-p", String(pid)]).catch(() => ({ stdout: "" }));
  return stdout.trim();
}

/**
 * The postmaster's parent when that is a running Node process (a live platform); undefined when
 * the postmaster was orphaned, which reparents it to init or a subreaper.
 */
async function liveNodeParent(pid: number): Promise<number | undefined> {
  const parent = Number(await ps("ppid", pid));
  if (!Number.isInteger(parent) || parent <= 1) return undefined;
  return path.basename((await ps("args", parent)).split(/\s+/)[0] ?? "") === "node" ? parent : undefined;
}

/** Whether `pid` runs `postgres -D <dataDir>`. */
async function isPostmasterOf(pid: number, dataDir: string): Promise<boolean> {
  const args = (await ps("args", pid)).split(/\s+/);
  const at = args.indexOf("-D");
  return path.basename(args[0] ?? "") === "postgres" && at >= 0 && path.resolve(args[at + 1] ?? "") === path.resolve(dataDir);
}

async function exited(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}
