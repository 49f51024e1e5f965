import { createLogger, exitOnStartupFailure, initTelemetry } from "@hangar/shared";
import { startRunner } from "./runner";
import { runnerOptionsFromEnv } from "./runner-env";

/** A runner as its own process (a Deployment in Kubernetes): configured by the environment, stopped by SIGTERM. */
async function main(): Promise<void> {
  initTelemetry("hangar-runner");
  const logger = createLogger("hangar-runner");
  const runner = await startRunner({ ...runnerOptionsFromEnv(), logger });
  const shutdown = async () => {
    logger.info("stopping");
    await runner.stop();
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown());
  process.once("SIGINT", () => void shutdown());
}

main().catch(exitOnStartupFailure("runner"));
