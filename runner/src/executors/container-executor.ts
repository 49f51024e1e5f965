import { access, constants } from "node:fs/promises";
import path from "node:path";
import { type ActionExecutor, type ActionSpec, inheritedEnvironment, type LaunchPlan, NotRunnableError } from "./executor";

/** Host variables the container CLI needs to find its daemon and configuration. */
const CLI_INHERITED = ["PATH", "HOME", "DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "CONTAINER_HOST", "XDG_RUNTIME_DIR"];

/** Options of the container executor. */
export interface ContainerExecutorOptions {
  /** `docker` or `podman` (a name on PATH or a path). */
  cli: string;
  /** `--network` of the containers. */
  network: string;
  /** The user the container runs as, so that its outputs belong to the runner; default the runner's. */
  user?: string;
  hostEnv?: NodeJS.ProcessEnv;
}

/**
 * Runs an action's image with a local container runtime: `<cli> run --rm`, the workspace mounted
 * at the same path (so the runtime paths in the environment and the inputs manifest hold inside
 * and out), the entry point and command of the invocation. Variables are passed by name only
 * (`-e NAME`), their values through the CLI's environment, so the API key never shows in `ps`.
 */
export function containerExecutor(options: ContainerExecutorOptions): ActionExecutor {
  const user = options.user ?? `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
  return {
    kind: "container",
    plan(spec: ActionSpec): LaunchPlan {
      if (!spec.image) throw new NotRunnableError("no image to run: the action has no uri");
      const name = `hangar-${spec.invocationId}`;
      const [entryPoint, ...entryArgs] = spec.entryPoint;
      const root = spec.workspace.root;
      return {
        argv: [
          options.cli, "run", "--rm", "--name", name, "--network", options.network, "--user", user,
          "--volume", `${root}:${root}`,
          ...(spec.workdir ? ["--workdir", spec.workdir] : []),
          ...Object.keys(spec.env).flatMap((key) => ["--env", key]),
          ...(entryPoint !== undefined ? ["--entrypoint", entryPoint] : []),
          spec.image,
          ...entryArgs,
          ...spec.command,
        ],
        cwd: root,
        env: { ...inheritedEnvironment(CLI_INHERITED, options.hostEnv), ...spec.env },
        cleanup: [options.cli, "rm", "--force", name],
      };
    },
  };
}

/** The first of `docker` and `podman` found on PATH, or undefined when neither is there. */
export async function detectContainerCli(pathVariable = process.env.PATH ?? ""): Promise<string | undefined> {
  for (const cli of ["docker", "podman"]) {
    for (const dir of pathVariable.split(path.delimiter).filter(Boolean)) {
      const candidate = path.join(dir, cli);
      if (await access(candidate, constants.X_OK).then(() => true, () => false)) return cli;
    }
  }
  return undefined;
}
