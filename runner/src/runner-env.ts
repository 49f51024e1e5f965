import type { ExecutorKind, RunnerOptions } from "./runner-options";

type Env = Record<string, string | undefined>;

/**
 * Runner options from the environment: `COMPUTE_SERVICE_URL`, `GATEWAY_URL` and
 * `INTERNAL_AUTH_SECRET` (required); `RUNNER_ID`, `RUNNER_EXECUTORS` (`process`, `container` or
 * both, comma-separated), `RUNNER_CONCURRENCY`, `RUNNER_POLL_INTERVAL_MS`, `RUNNER_WORK_DIR`,
 * `RUNNER_ORG_ID`, `RUNNER_CONTAINER_CLI`, `RUNNER_CONTAINER_NETWORK`. All missing ones are reported together.
 */
export function runnerOptionsFromEnv(env: Env = process.env): RunnerOptions {
  const missing = ["COMPUTE_SERVICE_URL", "GATEWAY_URL", "INTERNAL_AUTH_SECRET"].filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`the runner needs ${missing.join(", ")}`);
  const number = (name: string) => (env[name] ? Number(env[name]) : undefined);
  return {
    computeUrl: env.COMPUTE_SERVICE_URL!,
    gatewayUrl: env.GATEWAY_URL!,
    internalAuthSecret: env.INTERNAL_AUTH_SECRET!,
    runnerId: env.RUNNER_ID || undefined,
    executors: env.RUNNER_EXECUTORS ? (env.RUNNER_EXECUTORS.split(",").map((e) => e.trim()) as ExecutorKind[]) : undefined,
    concurrency: number("RUNNER_CONCURRENCY"),
    pollIntervalMs: number("RUNNER_POLL_INTERVAL_MS"),
    workDir: env.RUNNER_WORK_DIR || undefined,
    orgId: env.RUNNER_ORG_ID || undefined,
    containerCli: env.RUNNER_CONTAINER_CLI || undefined,
    containerNetwork: env.RUNNER_CONTAINER_NETWORK || undefined,
  };
}
