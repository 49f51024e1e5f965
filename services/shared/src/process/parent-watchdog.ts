import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";

/** A watchdog started by `killWithParent`. */
export interface ParentWatchdog {
  /** Stops watching (the target ended or was stopped in order): the watchdog exits without signalling. */
  release(): void;
}

/**
 * Reads stdin until end of file, then signals the target and runs the clean-up command, if any.
 * Its stdin is a pipe whose other end only this process holds, and the kernel closes that end
 * however this process ends (SIGKILL, crash, OOM kill), so the signal follows even when no exit
 * handler runs. `read` is a shell builtin: one process per watchdog, and `release` kills exactly it.
 */
const WATCHDOG_SCRIPT = 'while read -r _; do :; done; kill -s "$0" -- "$1" 2>/dev/null; shift; [ $# -eq 0 ] || exec "$@"';

/** Watchdogs in use; held so that their pipes stay open for as long as this process runs. */
const watching = new Set<ChildProcess>();

/**
 * Makes `target` (a pid, or a process group as its negative id) get `signal` once this process has
 * gone, however it went. Node has no parent-death signal (Linux's prctl), and PostgreSQL and most
 * actions never notice their parent's death, so without this a `kill -9` leaves them running:
 * orphans that hold ports and, for actions, run a second time when the invocation is retried. The
 * watchdog runs in a session of its own, so a Ctrl-C or a group kill of this process's group leaves
 * it to do its job. `cleanup` (an argv, default none) runs after the signal: what killing leaves
 * behind, such as the container a killed `docker run` client started.
 */
export function killWithParent(target: number, signal: NodeJS.Signals, cleanup: string[] = []): ParentWatchdog {
  const args = ["-c", WATCHDOG_SCRIPT, signal.replace(/^SIG/, ""), String(target), ...cleanup];
  const child = spawn("sh", args, { stdio: ["pipe", "ignore", "ignore"], detached: true });
  child.on("error", () => watching.delete(child));
  child.stdin!.on("error", () => undefined);
  // Neither the watchdog nor its pipe may keep this process's event loop alive.
  child.unref();
  (child.stdin as unknown as Socket).unref();
  watching.add(child);
  return {
    release() {
      if (!watching.delete(child)) return;
      child.kill("SIGKILL");
      child.stdin!.destroy();
    },
  };
}
