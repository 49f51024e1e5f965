import type { ConnectRouter } from "@connectrpc/connect";
import type { EntitySchema, MigrationObject } from "@mikro-orm/core";
import type { ServiceName } from "../config";
import { openDatabase, type Orm } from "../db";
import { eventEntities, eventTablesMigration, outboxBacklog, startConsumer, startOutboxRelay, type ConsumerOptions, type EventTransport, type OutboxRelay, type RunningConsumer } from "../events";
import { addServiceGauges, type ServiceGauge } from "../metrics";
import type { Logger } from "../telemetry";
import { COMPONENT_READY, createDatabaseCheck, registerHealth } from "./health";
import type { InProcessEndpoint } from "./in-process-endpoint";
import { startRpcServer } from "./rpc-server";
import type { ServiceLocator } from "./service-client";

/** What the hosting process gives each service: shared infrastructure and where to listen. */
export interface ServiceRuntime {
  databaseUrl: string;
  internalAuthSecret: string;
  transport: EventTransport;
  logger: Logger;
  /** RPC port; 0 picks a free one. */
  port: number;
  host?: string;
  /** Where the peer services listen, for service-to-service calls. */
  locate: ServiceLocator;
}

/** Dependencies handed to a service's route and consumer factories. */
export interface ServiceContext {
  orm: Orm;
  runtime: ServiceRuntime;
  /** Wakes the outbox relay after a commit that wrote events, so delivery does not wait for the poll. */
  eventsWritten(): void;
}

/** An event consumer of a service. */
export type ConsumerDefinition = Pick<ConsumerOptions, "name" | "topics" | "handler" | "accepts">;

/** Everything that makes a service: its schema, its RPCs and its consumers. */
export interface ServiceDefinition {
  name: ServiceName;
  entities: EntitySchema[];
  migrations: MigrationObject[];
  routes(router: ConnectRouter, context: ServiceContext): void;
  consumers?(context: ServiceContext): ConsumerDefinition[];
  /** Runs after migrations and before the server accepts calls. */
  onStart?(context: ServiceContext): Promise<void>;
  /** Runs on close, after the server stops taking calls and before the database closes (stops background loops). */
  onStop?(): Promise<void>;
  /** Gauges of the service's own, read at scrape time (`/metrics`), beside the outbox and consumer lag every service has. */
  gauges?(context: ServiceContext): ServiceGauge[];
}

/** A started service. */
export interface RunningService {
  name: ServiceName;
  url: string;
  port: number;
  /** The service's RPCs for a caller in this thread (`RpcServer.inProcess`). */
  inProcess: InProcessEndpoint;
  orm: Orm;
  /** The service's outbox relay (tests pause it to stage failures between publish and mark). */
  relay: OutboxRelay;
  close(): Promise<void>;
}

/**
 * Starts one service: opens its schema and applies migrations, starts its outbox relay and
 * consumers, then serves its RPCs on its own port, with the internal HealthService, the gRPC health
 * protocol (SERVING while its database answers) and server reflection. Used alike by the per-service processes of a
 * distributed deployment and by the embedded single-process platform.
 */
export async function runService(definition: ServiceDefinition, runtime: ServiceRuntime): Promise<RunningService> {
  const logger = runtime.logger.child({ service: definition.name });
  const orm = await openDatabase({
    url: runtime.databaseUrl,
    schema: definition.name,
    entities: [...eventEntities, ...definition.entities],
    migrations: [eventTablesMigration, ...definition.migrations],
    logger,
  });
  const relay: OutboxRelay = startOutboxRelay({ orm, transport: runtime.transport, logger });
  const context: ServiceContext = { orm, runtime: { ...runtime, logger }, eventsWritten: () => relay.wake() };
  await definition.onStart?.(context);
  const consumers: RunningConsumer[] = [];
  const consumerDefinitions = definition.consumers?.(context) ?? [];
  for (const consumer of consumerDefinitions) {
    consumers.push(await startConsumer({ ...consumer, orm, transport: runtime.transport, logger }));
  }
  const removeGauges = addServiceGauges({ service: definition.name, outbox: () => outboxBacklog(orm), consumers: consumerLags(runtime.transport, consumerDefinitions) }, definition.gauges?.(context));
  const checkDatabase = createDatabaseCheck(orm);
  const server = await startRpcServer({
    name: definition.name,
    port: runtime.port,
    ...(runtime.host ? { host: runtime.host } : {}),
    routes: (router) => {
      definition.routes(router, context);
      registerHealth(router, { checkDatabase, transport: runtime.transport });
    },
    // Kafka is left out: a service serves without its broker (events wait in the outbox).
    serving: async () => (await checkDatabase()) === COMPONENT_READY,
    internalAuthSecret: runtime.internalAuthSecret,
    logger,
  });
  return {
    name: definition.name,
    url: server.url,
    port: server.port,
    inProcess: server.inProcess,
    orm,
    relay,
    async close() {
      removeGauges();
      await server.close();
      // Events published after this (by services that stop later) wait for the next start.
      for (const consumer of consumers) await consumer.stop();
      await definition.onStop?.();
      await relay.stop();
      await orm.close();
    },
  };
}

/** Each consumer's lag, where the transport measures it (Kafka). */
function consumerLags(transport: EventTransport, consumers: ConsumerDefinition[]): { name: string; lag: () => Promise<Map<string, number>> }[] {
  const measure = transport.consumerLag?.bind(transport);
  if (!measure) return [];
  return consumers.map((consumer) => ({ name: consumer.name, lag: () => measure(consumer.name, consumer.topics) }));
}
