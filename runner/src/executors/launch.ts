import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { killWithParent } from "@hangar/shared";
import type { LaunchPlan } from "./executor";

/** How a launched action ended. */
export interface LaunchResult {
  /** The exit code, or null when a signal ended it. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of `launch`. */
export interface LaunchOptions {
  /** Each line the process writes on stdout or stderr. */
  onLine(line: string): void;
  /** Aborting stops the process: SIGTERM to its whole process group, then SIGKILL after `killGraceMs`. */
  signal: AbortSignal;
  killGraceMs: number;
}

/**
 * Starts the plan's process in a process group of its own and waits for it to end. Whatever it
 * started is killed with it, on a stop and after a normal exit alike, so no action leaves
 * processes behind, and a watchdog kills the group if the runner itself dies (even by SIGKILL), so
 * that a retried invocation never runs next to the orphan of its first attempt. A process that
 * cannot start (unknown program) rejects.
 */
export function launch(plan: LaunchPlan, options: LaunchOptions): Promise<LaunchResult> {
  const [program, ...args] = plan.argv;
  const child = spawn(program!, args, { cwd: plan.cwd, env: plan.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const watchdog = child.pid === undefined ? undefined : killWithParent(-child.pid, "SIGKILL", plan.cleanup);
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream, crlfDelay: Infinity }).on("line", options.onLine);
  let escalation: NodeJS.Timeout | undefined;
  const stop = () => {
    killGroup(child.pid, "SIGTERM");
    escalation = setTimeout(() => {
      killGroup(child.pid, "SIGKILL");
      if (plan.cleanup) spawn(plan.cleanup[0]!, plan.cleanup.slice(1), { env: plan.env, stdio: "ignore" }).on("error", () => undefined);
    }, options.killGraceMs);
  };
  if (options.signal.aborted) stop();
  else options.signal.addEventListener("abort", stop, { once: true });
  return new Promise<LaunchResult>((resolve, reject) => {
    child.once("error", (error) => {
      watchdog?.release();
      reject(error);
    });
    // Output pipes close only when every process holding them has gone: kill the rest of the group.
    child.once("exit", () => {
      killGroup(child.pid, "SIGKILL");
      watchdog?.release();
    });
    child.once("close", (exitCode, signal) => {
      clearTimeout(escalation);
      options.signal.removeEventListener("abort", stop);
      resolve({ exitCode, signal });
    });
  });
}

/** Signals every process of the group led by `pid`; a group that is already gone (ESRCH) is fine. */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Best effort: the group has ended, or its last process is exiting.
  }
}
