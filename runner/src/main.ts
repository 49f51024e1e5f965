// First: relaunches the process with the platform's V8 flags before anything else loads.
import "@hangar/shared/node-flags";
import { createLogger, exitOnStartupFailure, initTelemetry, loadRunnerConfig } from "@hangar/shared";
import { startRunner } from "./runner";

/** A runner as its own process (a Deployment in Kubernetes): configured by the environment (loadRunnerConfig), stopped by SIGTERM. */
async function main(): Promise<void> {
  const config = loadRunnerConfig();
  initTelemetry("hangar-runner");
  const logger = createLogger("hangar-runner");
  const runner = await startRunner({ ...config, logger });
  const shutdown = async () => {
    logger.info("stopping");
    await runner.stop();
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown());
  process.once("SIGINT", () => void shutdown());
}

main().catch(exitOnStartupFailure("runner"));
