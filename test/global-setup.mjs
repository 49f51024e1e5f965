// Starts the real infrastructure once per test run: PostgreSQL (embedded binaries) and a
// single-node Kafka broker, unless DATABASE_URL / KAFKA_BROKERS point at running ones.
import { startPostgres } from "./src/postgres.mjs";
import { kafkaFromEnvOrStart } from "./src/kafka.mjs";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export default async function globalSetup() {
  const started = [];
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const pg = await startPostgres();
    started.push(pg);
    databaseUrl = pg.url;
  }
  const kafka = await kafkaFromEnvOrStart();
  started.push(kafka);
  process.env.HANGAR_TEST_DATABASE_URL = databaseUrl;
  process.env.HANGAR_TEST_KAFKA_BROKERS = kafka.brokers;
  globalThis.__hangarInfrastructure = started;
  // The route log of this run, read by `npm run coverage-table`.
  const cache = path.resolve(import.meta.dirname, "../.cache");
  mkdirSync(cache, { recursive: true });
  process.env.HANGAR_ROUTE_LOG = path.join(cache, "route-hits.jsonl");
  writeFileSync(process.env.HANGAR_ROUTE_LOG, "");
}
