// Starts the real infrastructure once per test run: PostgreSQL (embedded binaries), a single-node
// Kafka broker, an S3-compatible server (moto) and an SMTP sink (aiosmtpd), the first three unless DATABASE_URL / KAFKA_BROKERS / S3_ENDPOINT
// point at running ones; and installs the Python client SDK the SDK compatibility tests drive.
import { startPostgres } from "./src/postgres.mjs";
import { kafkaFromEnvOrStart } from "./src/kafka.mjs";
import { robotoPython } from "./src/python-sdk.mjs";
import { s3FromEnvOrStart } from "./src/s3.mjs";
import { startSmtpSink } from "./src/smtp.mjs";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export default async function globalSetup() {
  // The public Python client SDK (roboto), pinned and newest, for the SDK compatibility tests;
  // first, so that a failed install leaves no servers behind.
  process.env.HANGAR_TEST_ROBOTO_PYTHON = robotoPython("pinned");
  process.env.HANGAR_TEST_ROBOTO_NEXT_PYTHON = robotoPython("newest");
  const started = [];
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const pg = await startPostgres();
    started.push(pg);
    databaseUrl = pg.url;
  }
  const kafka = await kafkaFromEnvOrStart();
  started.push(kafka);
  // A real S3-compatible server (moto) for the tests of the S3 object store.
  const s3 = await s3FromEnvOrStart();
  started.push(s3);
  process.env.HANGAR_TEST_S3_ENDPOINT = s3.endpoint;
  process.env.HANGAR_TEST_S3_ACCESS_KEY_ID = s3.accessKeyId;
  process.env.HANGAR_TEST_S3_SECRET_ACCESS_KEY = s3.secretAccessKey;
  process.env.HANGAR_TEST_S3_REGION = s3.region;
  // A real SMTP server (aiosmtpd) that keeps what it receives, for the notification emails' tests.
  const smtp = await startSmtpSink();
  started.push(smtp);
  process.env.HANGAR_TEST_SMTP_HOST = smtp.host;
  process.env.HANGAR_TEST_SMTP_PORT = String(smtp.port);
  process.env.HANGAR_TEST_SMTP_MAILBOX = smtp.mailbox;
  process.env.HANGAR_TEST_DATABASE_URL = databaseUrl;
  process.env.HANGAR_TEST_KAFKA_BROKERS = kafka.brokers;
  globalThis.__hangarInfrastructure = started;
  // The route log of this run, read by `npm run coverage-table`.
  const cache = path.resolve(import.meta.dirname, "../.cache");
  mkdirSync(cache, { recursive: true });
  process.env.HANGAR_ROUTE_LOG = path.join(cache, "route-hits.jsonl");
  writeFileSync(process.env.HANGAR_ROUTE_LOG, "");
}
