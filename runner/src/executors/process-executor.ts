import { type ActionExecutor, type ActionSpec, inheritedEnvironment, type LaunchPlan, NotRunnableError } from "./executor";
import { pathWithin } from "../workspace";

/** Host variables a process action inherits: enough to find and run programs, nothing of the runner's secrets. */
const INHERITED = ["PATH", "LANG", "LC_ALL", "TZ"];

/**
 * Runs an action as a process on the runner's host: argv = entry point then command (no shell),
 * in the workspace (or `workdir` below it), with HOME set to the workspace. The action runs with
 * the runner's user and can reach whatever the runner can: for trusted actions only.
 */
export function processExecutor(hostEnv: NodeJS.ProcessEnv = process.env): ActionExecutor {
  return {
    kind: "process",
    plan(spec: ActionSpec): LaunchPlan {
      const argv = [...spec.entryPoint, ...spec.command];
      if (argv.length === 0) throw new NotRunnableError("no command to run");
      const root = spec.workspace.root;
      return {
        argv,
        cwd: spec.workdir ? pathWithin(root, spec.workdir) : root,
        env: { ...inheritedEnvironment(INHERITED, hostEnv), HOME: root, ...spec.env },
      };
    },
  };
}
