import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import type { Orm } from "../db";
import type { EventTransport } from "../events";
import { CheckHealthResponseSchema, HealthService } from "../gen/hangar/common/v1/health_pb";

/** What a ready component answers; anything else is the reason it is not ready. */
export const COMPONENT_READY = "ready";

/**
 * How long `select 1` may take before the database counts as not ready (1 s): a readiness probe
 * must answer well within the gateway's own deadline even when PostgreSQL hangs rather than refuses.
 */
export const DATABASE_CHECK_TIMEOUT_MS = 1_000;

/** What the health check looks at. */
export interface HealthDependencies {
  /** The service's database check (`createDatabaseCheck`). */
  checkDatabase: () => Promise<string>;
  transport: EventTransport;
}

/**
 * Registers the internal `HealthService.CheckHealth` on a service's router: `database` (a `select 1`
 * within DATABASE_CHECK_TIMEOUT_MS) and `events` (the transport's status), each COMPONENT_READY or why not.
 * runService registers it for every service, so the gateway's `/readyz` can ask each of them.
 */
export function registerHealth(router: ConnectRouter, dependencies: HealthDependencies): void {
  router.service(HealthService, {
    async checkHealth() {
      return create(CheckHealthResponseSchema, { components: { database: await dependencies.checkDatabase(), events: dependencies.transport.status() } });
    },
  });
}

/**
 * The one database check of a service, COMPONENT_READY or why not: what CheckHealth reports as
 * `database` and what the gRPC health protocol's SERVING means. Concurrent checks share one query.
 */
export function createDatabaseCheck(orm: Orm): () => Promise<string> {
  const selectOne = shared(() => orm.em.getConnection().execute("select 1"));
  return () => checkDatabase(selectOne);
}

async function checkDatabase(selectOne: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer to select 1 within ${DATABASE_CHECK_TIMEOUT_MS} ms`), DATABASE_CHECK_TIMEOUT_MS);
  });
  const answer = selectOne().then(
    () => COMPONENT_READY,
    (error: unknown) => `select 1 failed: ${error instanceof Error ? error.message : String(error)}`,
  );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Callers arriving while a query is in flight share it, even past their timeout: against a hung
 * database each probe would otherwise hold one more pooled connection until the pool is exhausted.
 */
function shared<T>(query: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  return () => (inFlight ??= query().finally(() => (inFlight = undefined)));
}
