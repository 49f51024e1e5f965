import { loadConfig, type PlatformConfig } from "../config";
import { createKafkaTransport } from "../events";
import { startMetricsServer } from "../metrics";
import { createLogger, initTelemetry, shutdownTelemetry } from "../telemetry";
import { runService, type ServiceDefinition } from "./run-service";
import { exitOnStartupFailure } from "./startup-failure";

/**
 * The composition root of one service in a distributed deployment (one container per service):
 * configuration from the environment, Kafka for events, the RPC port on all interfaces, Prometheus
 * metrics on `METRICS_PORT`, and a graceful stop on SIGTERM.
 */
export function runServiceMain(define: (config: PlatformConfig) => ServiceDefinition | Promise<ServiceDefinition>): void {
  const start = async () => {
    const config = loadConfig();
    const definition = await define(config);
    const missing = [
      config.databaseUrl ? "" : "DATABASE_URL",
      config.kafkaBrokers.length ? "" : "KAFKA_BROKERS",
      config.internalAuthSecret ? "" : "INTERNAL_AUTH_SECRET",
    ].filter(Boolean);
    if (missing.length) throw new Error(`a distributed service needs ${missing.join(", ")}`);
    initTelemetry(`hangar-${definition.name}`);
    const logger = createLogger(`hangar-${definition.name}`, config.logLevel);
    const transport = createKafkaTransport({
      brokers: config.kafkaBrokers,
      clientId: `hangar-${definition.name}`,
      logger,
      ...(config.kafkaNamespace ? { namespace: config.kafkaNamespace } : {}),
    });
    const service = await runService(definition, {
      databaseUrl: config.databaseUrl!,
      internalAuthSecret: config.internalAuthSecret!,
      transport,
      logger,
      port: config.rpcPort,
      host: "0.0.0.0",
      locate: (name) => {
        const url = config.serviceUrls[name];
        return url === undefined ? undefined : { url };
      },
    });
    // After the RPC port: a scrape finds the service serving.
    const metrics = await startMetricsServer({ port: config.metricsPort, host: "0.0.0.0", logger });
    process.once("SIGTERM", () => {
      void (async () => {
        await metrics.close();
        await service.close();
        await transport.close();
        await shutdownTelemetry();
        process.exit(0);
      })();
    });
  };
  start().catch(exitOnStartupFailure("service"));
}
