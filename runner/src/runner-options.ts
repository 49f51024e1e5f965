import { randomBytes } from "node:crypto";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { createLogger, type Logger } from "@hangar/shared";

/** The ways a runner can run an action. */
export type ExecutorKind = "process" | "container";

/** Options of `startRunner`. */
export interface RunnerOptions {
  /** Base URL of the compute service's gRPC endpoint. */
  computeUrl: string;
  /** The gateway's base URL: the runner and its actions reach data through it (`ROBOTO_SERVICE_ENDPOINT`). */
  gatewayUrl: string;
  /** The key that signs the runner's service principal (`INTERNAL_AUTH_SECRET`). */
  internalAuthSecret: string;
  /** Names the runner in status details and logs; default `<host>-<pid>-<random>`. */
  runnerId?: string;
  /** What it can run; default `process`. */
  executors?: ExecutorKind[];
  /** For the container executor: the CLI to run containers with; default `docker`, else `podman`, found on PATH. */
  containerCli?: string;
  /** Network of action containers; default `host`, so that a gateway on localhost stays reachable. */
  containerNetwork?: string;
  /** Only claim invocations of this org. */
  orgId?: string;
  /** How many invocations run at once; default 2. */
  concurrency?: number;
  /** How long to wait between claims while the queue is empty; default 500 ms. */
  pollIntervalMs?: number;
  /** Where invocation workspaces are made (and removed afterwards); default `<tmp>/hangar-runner`. */
  workDir?: string;
  /** How long a stopped action gets between SIGTERM and SIGKILL; default 5000 ms. */
  killGraceMs?: number;
  logger?: Logger;
}

/** The options with every default applied. */
export type ResolvedRunnerOptions = Required<Omit<RunnerOptions, "orgId" | "containerCli">> & Pick<RunnerOptions, "orgId" | "containerCli">;

/** Applies the defaults and checks the options once, reporting every bad one together. */
export function validateRunnerOptions(options: RunnerOptions): ResolvedRunnerOptions {
  const resolved: ResolvedRunnerOptions = {
    computeUrl: options.computeUrl,
    gatewayUrl: options.gatewayUrl,
    internalAuthSecret: options.internalAuthSecret,
    runnerId: `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`,
    executors: ["process"],
    containerNetwork: "host",
    concurrency: 2,
    pollIntervalMs: 500,
    workDir: path.join(tmpdir(), "hangar-runner"),
    killGraceMs: 5000,
    logger: createLogger("hangar-runner"),
    ...definedOnly(options),
  };
  const problems = [
    ...(resolved.executors.length === 0 ? ["executors: name at least one of process, container"] : []),
    ...resolved.executors.filter((e) => e !== "process" && e !== "container").map((e) => `executors: unknown executor '${e}'`),
    ...(Number.isInteger(resolved.concurrency) && resolved.concurrency > 0 ? [] : ["concurrency: must be a positive integer"]),
    ...(resolved.internalAuthSecret ? [] : ["internalAuthSecret: is required"]),
  ];
  if (problems.length > 0) throw new Error(`invalid runner options:\n  ${problems.join("\n  ")}`);
  return resolved;
}

function definedOnly(options: RunnerOptions): Partial<RunnerOptions> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
