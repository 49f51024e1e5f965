import { MikroORM, type EntitySchema, type MigrationObject } from "@mikro-orm/core";
import { PostgreSqlDriver, type EntityManager } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import { quoteTextArrays } from "./array-literal";
import { outboxSubscriber } from "../events/outbox";
import type { Logger } from "../telemetry";

export type { EntityManager };
export type Orm = MikroORM<PostgreSqlDriver>;

/** How long opening a connection may take before it counts as the database being unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/** What a service needs to open its own schema. */
export interface DatabaseOptions {
  /** PostgreSQL URL shared by all services; each service keeps to its own schema. */
  url: string;
  /** The service's schema (`admin`, `data`, ...): no service reads another's tables. */
  schema: string;
  entities: EntitySchema[];
  /** The service's committed migrations, in order. */
  migrations: MigrationObject[];
  logger: Logger;
  /** Connection pool size (default 10). */
  poolMax?: number;
}

/**
 * Opens a service's database: creates its schema if needed, connects MikroORM with the search
 * path set to that schema, and applies the committed migrations that have not run yet.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Orm> {
  const { schema } = options;
  const orm = await MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: options.url,
    schema,
    // Each service's ORM keeps its own async context: with the default shared name, a consumer
    // called inside another service's transaction (in-process delivery) would join that transaction.
    contextName: schema,
    entities: options.entities,
    extensions: [Migrator],
    subscribers: [outboxSubscriber],
    migrations: {
      migrationsList: options.migrations,
      tableName: "schema_migrations",
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
    pool: { min: 0, max: options.poolMax ?? 10 },
    discovery: { warnWhenNoEntities: false, onMetadata: quoteTextArrays },
    allowGlobalContext: false,
    debug: false,
    logger: (message) => options.logger.debug({ orm: message }),
    // A server that does not answer (rather than refuse) fails a connection attempt after 5 s, an
    // outage the callers hear as UNAVAILABLE, instead of holding requests until their deadline.
    driverOptions: { connection: { options: `-c search_path="${schema}"`, connectionTimeoutMillis: CONNECT_TIMEOUT_MS }, log: knexLog(options.logger) },
  });
  const applied = await withMigrationLock(orm, schema, async () => {
    await orm.em.getConnection().execute(`create schema if not exists "${schema}"`);
    return orm.getMigrator().up();
  });
  if (applied.length > 0) options.logger.info({ schema, migrations: applied.map((m) => m.name) }, "migrations applied");
  return orm;
}

/**
 * Knex's own messages (a pooled connection that ended, when PostgreSQL stops) go to the service's
 * logger instead of the console; the failed queries themselves reach the callers as UNAVAILABLE.
 */
function knexLog(logger: Logger) {
  const log = (level: "debug" | "warn") => (message: unknown) => logger[level]({ knex: String(message) }, "database driver");
  return { debug: log("debug"), deprecate: log("debug"), warn: log("warn"), error: log("warn") };
}

interface LockConnection {
  query(text: string, values: unknown[]): Promise<unknown>;
}

/**
 * Runs the migrations of a schema under a PostgreSQL advisory lock held on a connection of its own,
 * so replicas of a service that start together migrate one after the other instead of racing.
 */
async function withMigrationLock<T>(orm: Orm, schema: string, migrate: () => Promise<T>): Promise<T> {
  const client = orm.em.getConnection().getKnex().client as {
    acquireConnection(): Promise<LockConnection>;
    releaseConnection(connection: LockConnection): Promise<void>;
  };
  const connection = await client.acquireConnection();
  const key = [`hangar-migrations:${schema}`];
  try {
    await connection.query("select pg_advisory_lock(hashtextextended($1, 0))", key);
    try {
      return await migrate();
    } finally {
      await connection.query("select pg_advisory_unlock(hashtextextended($1, 0))", key);
    }
  } finally {
    await client.releaseConnection(connection);
  }
}
