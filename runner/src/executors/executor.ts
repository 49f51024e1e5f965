import type { ExecutorKind } from "../runner-options";
import type { Workspace } from "../workspace";

/** What to run for an invocation, whichever way it runs. */
export interface ActionSpec {
  invocationId: string;
  /** `container_parameters.entry_point`. */
  entryPoint: string[];
  /** `container_parameters.command`. */
  command: string[];
  /** `container_parameters.workdir`: relative to the workspace for a process, a path in the image for a container. */
  workdir?: string | undefined;
  /** The action's image (`uri`). */
  image?: string | undefined;
  /** The action runtime environment. */
  env: Record<string, string>;
  workspace: Workspace;
}

/** A process to start: what runs the action. */
export interface LaunchPlan {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Run after a forced stop, to remove what killing the process leaves behind (a container). */
  cleanup?: string[];
}

/** An action that cannot run as given; the invocation fails with this message. */
export class NotRunnableError extends Error {
  override name = "NotRunnableError";
}

/** A way to run actions: turns an action into the process that runs it. */
export interface ActionExecutor {
  kind: ExecutorKind;
  /** Throws NotRunnableError when the action cannot run this way. */
  plan(spec: ActionSpec): LaunchPlan;
}

/** The runner's own variables an action's process may see: never its keys, only what programs need to start. */
export function inheritedEnvironment(names: string[], env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(names.filter((name) => env[name] !== undefined).map((name) => [name, env[name]!]));
}
