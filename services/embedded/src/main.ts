import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { createInProcessTransport, createKafkaTransport, createLogger, initTelemetry, loadConfig, type EventTransport } from "@hangar/shared";
import { startPlatform } from "./platform";
import { startEmbeddedPostgres } from "./embedded-postgres";

/**
 * The embedded default: the whole platform in one process on one machine. PostgreSQL is embedded
 * unless DATABASE_URL is set; events travel in process unless KAFKA_BROKERS is set.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  initTelemetry("hangar");
  const logger = createLogger("hangar", config.logLevel);
  await mkdir(config.dataDir, { recursive: true });
  const postgres = config.databaseUrl ? undefined : await startEmbeddedPostgres(path.join(config.dataDir, "postgres"), logger);
  const transport: EventTransport = config.kafkaBrokers.length
    ? createKafkaTransport({ brokers: config.kafkaBrokers, clientId: "hangar", logger })
    : createInProcessTransport();
  const platform = await startPlatform({
    databaseUrl: config.databaseUrl ?? postgres!.url,
    transport,
    // One process: the signing key never leaves it, so a fresh one per start is enough.
    internalAuthSecret: config.internalAuthSecret ?? randomBytes(32).toString("hex"),
    port: config.port,
    host: process.env.HOST ?? "127.0.0.1",
    ...(config.bootstrapToken ? { bootstrapToken: config.bootstrapToken } : {}),
    authCacheTtlMs: config.authCacheTtlMs,
    development: config.development,
    logger,
  });
  logger.info({ services: Object.fromEntries(Object.values(platform.services).map((svc) => [svc.name, svc.url])) }, "services listening");
  printBanner(platform.gateway.url, platform.bootstrap);
  const shutdown = async () => {
    logger.info("shutting down");
    await platform.close();
    await transport.close();
    await postgres?.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown());
  process.once("SIGTERM", () => void shutdown());
}

function printBanner(url: string, bootstrap: { orgId: string; userId: string; token: string } | undefined): void {
  const lines = [`Hangar is running. Gateway: ${url}`];
  if (bootstrap) {
    lines.push(
      `First start: created org ${bootstrap.orgId} and its admin '${bootstrap.userId}'.`,
      `Admin API token (shown once, keep it): ${bootstrap.token}`,
      `Try: curl -H "Authorization: Bearer ${bootstrap.token}" ${url}/v1/users/whoami`,
    );
  }
  process.stdout.write(`\n${lines.join("\n")}\n\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`hangar failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
