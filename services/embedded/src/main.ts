// First: relaunches the process with the platform's V8 flags before anything else loads.
import "@hangar/shared/node-flags";
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { computeOptionsFromConfig } from "@hangar/compute";
import { openObjectStore } from "@hangar/data";
import { startRunner, type Runner } from "@hangar/runner";
import {
  createInProcessTransport,
  createKafkaTransport,
  createLogger,
  exitOnStartupFailure,
  initTelemetry,
  loadConfig,
  type EmbeddedRunner,
  type Logger,
} from "@hangar/shared";
import { startEmbeddedPostgres } from "./embedded-postgres";
import { startPlatform } from "./platform";

/**
 * The embedded default: the whole platform in one process on one machine, the gateway and the
 * services on one thread, the gateway calling the services in process (`startPlatform`).
 * PostgreSQL is embedded unless DATABASE_URL is set; events travel in process unless KAFKA_BROKERS
 * is set. One thread, measured (`npm run bench`, README "Benchmarks"): with the services on a
 * worker thread behind gRPC over loopback the machine spent more CPU per request on the hop than
 * the second thread gave back on two cores shared with PostgreSQL.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  initTelemetry("hangar");
  const logger = createLogger("hangar", config.logLevel);
  await mkdir(config.dataDir, { recursive: true });
  const postgres = config.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({ dataDir: path.join(config.dataDir, "postgres"), port: config.embeddedPostgresPort, logger });
  // One process: the signing key never leaves it, so a fresh one per start is enough.
  const internalAuthSecret = config.internalAuthSecret ?? randomBytes(32).toString("hex");
  const transport = config.kafkaBrokers.length
    ? createKafkaTransport({ brokers: config.kafkaBrokers, clientId: "hangar", logger })
    : createInProcessTransport();
  const objectStore = await openObjectStore({ s3: config.s3, dataDir: config.dataDir, port: config.objectStorePort });
  const platform = await startPlatform({
    objectStore,
    databaseUrl: config.databaseUrl ?? postgres!.url,
    transport,
    internalAuthSecret,
    port: config.port,
    host: config.host,
    ...(config.bootstrapToken ? { bootstrapToken: config.bootstrapToken } : {}),
    authCacheTtlMs: config.authCacheTtlMs,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    development: config.development,
    logger,
    compute: computeOptionsFromConfig(config),
    data: { exportRetentionMs: config.exportRetentionHours * 3_600_000 },
    admin: { smtp: config.smtp },
  });
  const urls = Object.fromEntries(Object.values(platform.services).map((service) => [service.name, service.url]));
  logger.info({ services: urls }, "services listening");
  const runner = await startEmbeddedRunner(config.runner, {
    computeUrl: platform.services.compute.url,
    gatewayUrl: platform.gateway.url,
    internalAuthSecret,
    workDir: path.join(config.dataDir, "runner"),
    logger,
  });
  printBanner(platform.gateway.url, objectStore.location.endpoint, platform.bootstrap);
  const shutdown = async () => {
    logger.info("shutting down");
    await runner?.stop();
    await platform.close();
    await transport.close();
    await objectStore.close();
    await postgres?.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown());
  process.once("SIGTERM", () => void shutdown());
}

/**
 * The runner of the single-process platform (`RUNNER`): `process` (the default) runs actions as
 * processes on this host, for trusted actions only; `container` runs their images with docker or
 * podman; `none` runs nothing, for deployments whose runners run elsewhere.
 */
async function startEmbeddedRunner(
  kind: EmbeddedRunner,
  options: { computeUrl: string; gatewayUrl: string; internalAuthSecret: string; workDir: string; logger: Logger },
): Promise<Runner | undefined> {
  if (kind === "none") return undefined;
  return startRunner({ ...options, executors: [kind], logger: options.logger.child({ component: "runner" }) });
}

/**
 * The banner ends with the exact `export` lines the README's next commands use (the URL carries
 * the real port, so hangarctl and curl reach a gateway started with a non-default `PORT`).
 */
function printBanner(url: string, objectStore: string | undefined, bootstrap: { orgId: string; userId: string; token: string } | undefined): void {
  const lines = [`Hangar is running. Gateway: ${url}`, `Object store (S3-compatible): ${objectStore ?? "AWS S3"}`];
  if (bootstrap) {
    lines.push(
      `First start: created org ${bootstrap.orgId} and its admin '${bootstrap.userId}'.`,
      `The admin API token is shown once: keep it. In another shell, run:`,
      `  export HANGAR_URL=${url}`,
      `  export HANGAR_TOKEN=${bootstrap.token}`,
      `  export HANGAR_ORG=${bootstrap.orgId}`,
      ...(objectStore ? [`  export HANGAR_S3_ENDPOINT=${objectStore}`] : []),
    );
  } else {
    lines.push(`In another shell: export HANGAR_URL=${url}`);
  }
  process.stdout.write(`\n${lines.join("\n")}\n\n`);
}

main().catch(exitOnStartupFailure("hangar"));
