// First: relaunches the process with the platform's V8 flags before anything else loads.
import "@hangar/shared/node-flags";
import { createLogger, exitOnStartupFailure, initTelemetry, loadConfig, SERVICE_NAMES, type ServiceName } from "@hangar/shared";
import { startGateway } from "./gateway";

/** The gateway's composition root in a distributed deployment. */
async function main(): Promise<void> {
  const config = loadConfig();
  const missing = SERVICE_NAMES.filter((name) => !config.serviceUrls[name]).map((name) => `${name.toUpperCase()}_SERVICE_URL`);
  if (!config.internalAuthSecret) missing.push("INTERNAL_AUTH_SECRET");
  if (missing.length) throw new Error(`the gateway needs ${missing.join(", ")}`);
  initTelemetry("hangar-gateway");
  const logger = createLogger("hangar-gateway", config.logLevel);
  const gateway = await startGateway({
    port: config.port,
    host: "0.0.0.0",
    upstreams: config.serviceUrls as Record<ServiceName, string>,
    internalAuthSecret: config.internalAuthSecret!,
    authCacheTtlMs: config.authCacheTtlMs,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    development: config.development,
    logger,
  });
  logger.info({ port: gateway.port }, "gateway listening");
  process.once("SIGTERM", () => void gateway.close().then(() => process.exit(0)));
}

main().catch(exitOnStartupFailure("gateway"));
