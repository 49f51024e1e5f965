import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ComputeServiceOptions } from "@hangar/compute";
import { openObjectStore, type DataServiceOptions, type ObjectStore } from "@hangar/data";
import { startPlatform, type Platform } from "@hangar/embedded";
import { startRunner, type Runner } from "@hangar/runner";
import { createInProcessTransport, createKafkaTransport, createLogger, type EventTransport, type S3Config, type SmtpConfig } from "@hangar/shared";
import { createTestDatabase, requiredEnv } from "./database";
import { apiClient, type ApiClient } from "./http";
import { waitFor } from "./wait";

/** A platform started for one test file, with its bootstrap admin's client. */
export interface TestPlatform {
  platform: Platform;
  url: string;
  databaseUrl: string;
  /** The internal signing key, for tests that call services directly. */
  internalAuthSecret: string;
  /** Client of the bootstrap system admin. */
  admin: ApiClient;
  adminToken: string;
  transport: EventTransport;
  /** Where the platform keeps file bytes (the embedded S3-compatible store). */
  objectStore: ObjectStore;
  /** The test S3 server's settings and bucket (with `s3`), which a restart reuses. */
  s3: S3Config | undefined;
  /** Kafka topic and group prefix of this platform (with `kafka`). */
  namespace: string | undefined;
  /** The process runner (with `runner`). */
  runner: Runner | undefined;
  close(): Promise<void>;
}

/** Options of `startTestPlatform`. */
export interface TestPlatformOptions {
  /** Deliver events through the real Kafka broker instead of in process. */
  kafka?: boolean;
  /**
   * With `kafka`: the brokers to use instead of the test broker, such as a port where no broker runs
   * yet. The platform is then returned without waiting for its consumers to join their groups.
   */
  kafkaBrokers?: string;
  /** Keep file bytes in the test S3 server (moto), or in the S3-compatible store given, instead of the embedded store. */
  s3?: boolean | S3Config;
  /** Run on this database (a PostgreSQL server of the test's own) instead of a fresh one on the shared server. */
  databaseUrl?: string;
  /** Reuse an existing database and Kafka namespace (and with `s3`, its bucket): a restart of an earlier platform. */
  restartOf?: Pick<TestPlatform, "databaseUrl" | "namespace" | "adminToken" | "internalAuthSecret"> & Partial<Pick<TestPlatform, "s3">>;
  /** Start a process runner against the platform, which runs the actions invoked through it. */
  runner?: boolean;
  /** Options of the compute service, such as shorter runner leases. */
  compute?: ComputeServiceOptions;
  /** Options of the data service besides its object store, such as a short export retention. */
  data?: Omit<DataServiceOptions, "objectStore">;
}

/**
 * Starts the whole platform on a fresh database: every service behind its real RPC port and the
 * gateway on a free HTTP port. With `kafka`, events go through the test broker under a namespace
 * of their own, so test files running at the same time never see each other's events.
 */
export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const previous = options.restartOf;
  const databaseUrl = previous?.databaseUrl ?? options.databaseUrl ?? (await createTestDatabase());
  const logger = createLogger("test", process.env.LOG_LEVEL ?? "silent");
  const namespace = options.kafka ? (previous?.namespace ?? `t${randomBytes(4).toString("hex")}`) : undefined;
  const transport = namespace
    ? createKafkaTransport({ brokers: (options.kafkaBrokers ?? requiredEnv("HANGAR_TEST_KAFKA_BROKERS")).split(","), clientId: "hangar-test", logger, namespace })
    : createInProcessTransport();
  const adminToken = previous?.adminToken ?? `hgr_test_${randomBytes(16).toString("hex")}`;
  const internalAuthSecret = previous?.internalAuthSecret ?? randomBytes(32).toString("hex");
  const dataDir = await mkdtemp(path.join(tmpdir(), "hangar-test-"));
  const s3 = typeof options.s3 === "object" ? options.s3 : options.s3 ? (previous?.s3 ?? testS3Config()) : undefined;
  const objectStore: ObjectStore = await openObjectStore({ s3, dataDir, port: 0 });
  const platform = await startPlatform({
    objectStore,
    databaseUrl,
    transport,
    internalAuthSecret,
    port: 0,
    bootstrapToken: adminToken,
    authCacheTtlMs: 0,
    development: false,
    logger,
    onServed: logRoute,
    ...(options.compute ? { compute: options.compute } : {}),
    ...(options.data ? { data: options.data } : {}),
    admin: { smtp: testSmtpConfig(), emailIntervalMs: 100 },
  });
  // Consumers join their groups in the background; tests start once they receive events.
  if (!options.kafkaBrokers) await waitFor("the consumers to join their groups", async () => (transport.status() === "ready" ? true : undefined), 60_000);
  const runner = options.runner
    ? await startRunner({
        computeUrl: platform.services.compute.url,
        gatewayUrl: platform.gateway.url,
        internalAuthSecret,
        workDir: path.join(dataDir, "runner"),
        pollIntervalMs: 100,
        killGraceMs: 2000,
        logger: logger.child({ component: "runner" }),
      })
    : undefined;
  return {
    platform,
    url: platform.gateway.url,
    databaseUrl,
    internalAuthSecret,
    admin: apiClient(platform.gateway.url, adminToken),
    adminToken,
    transport,
    namespace,
    objectStore,
    s3,
    runner,
    async close() {
      await runner?.stop();
      await platform.close();
      await transport.close();
      await objectStore.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Appends each routed request to the run's route log (set up by the global setup), from which
 * `npm run coverage-table` tells which operations the suite exercised.
 */
function logRoute(route: { httpMethod: string; template: string }, status: number): void {
  const file = process.env.HANGAR_ROUTE_LOG;
  if (file) appendFileSync(file, `${JSON.stringify({ method: route.httpMethod, template: route.template, status })}\n`);
}

/** The test SMTP sink (aiosmtpd, started by the global setup), where the admin service sends notification emails. */
function testSmtpConfig(): SmtpConfig {
  return { host: requiredEnv("HANGAR_TEST_SMTP_HOST"), port: Number(requiredEnv("HANGAR_TEST_SMTP_PORT")), secure: false, from: "hangar-test@example.com" };
}

/** The test S3 server (moto, started by the global setup) as the platform's store, in a bucket of its own. */
function testS3Config(): S3Config {
  return {
    bucket: `hangar-${randomBytes(4).toString("hex")}`,
    region: requiredEnv("HANGAR_TEST_S3_REGION"),
    endpoint: requiredEnv("HANGAR_TEST_S3_ENDPOINT"),
    accessKeyId: requiredEnv("HANGAR_TEST_S3_ACCESS_KEY_ID"),
    secretAccessKey: requiredEnv("HANGAR_TEST_S3_SECRET_ACCESS_KEY"),
    // moto accepts any role; real deployments name the role scoped credentials are minted from.
    roleArn: "arn:aws:iam::123456789012:role/hangar-uploads",
    createBucket: true,
  };
}

/** An org with one member user and that user's API token. */
export interface TestTenant {
  orgId: string;
  userId: string;
  token: string;
  client: ApiClient;
}

/**
 * Creates an org and a user who belongs only to it, with an API token, the way an operator does:
 * the bootstrap admin creates the org and the user, then acts as the user to create its token.
 */
export async function createTenant(t: Pick<TestPlatform, "admin" | "url">, name: string): Promise<TestTenant> {
  const org = await t.admin.post("/v1/orgs", { name });
  if (org.status !== 200) throw new Error(`create org failed: ${JSON.stringify(org.body)}`);
  const orgId: string = org.body.data.org_id;
  const userId = `${name}-${randomBytes(3).toString("hex")}@example.com`;
  const user = await t.admin.post("/v1/users", { user_id: userId, org_id: orgId }, { "X-Service-Org-Id": orgId });
  if (user.status !== 200) throw new Error(`create user failed: ${JSON.stringify(user.body)}`);
  const token = await t.admin.post("/v1/tokens", { name: "test", expiry_days: 1 }, { "X-Service-User-Id": userId });
  if (token.status !== 200) throw new Error(`create token failed: ${JSON.stringify(token.body)}`);
  const secret: string = token.body.data.secret;
  return { orgId, userId, token: secret, client: apiClient(t.url, secret) };
}

/**
 * A test file's usual start: a platform, then one tenant (org, user, token) per name, in order;
 * destructure it as `[t, alice, bob] = await startWithTenants(["alice", "bob"])`.
 */
export async function startWithTenants<const N extends readonly string[]>(
  names: N,
  options: TestPlatformOptions = {},
): Promise<[TestPlatform, ...TenantsOf<N>]> {
  const t = await startTestPlatform(options);
  const tenants: TestTenant[] = [];
  for (const name of names) tenants.push(await createTenant(t, name));
  // One tenant per name, in order: the tuple type says so, which an array cannot.
  return [t, ...(tenants as unknown as TenantsOf<N>)];
}

type TenantsOf<N extends readonly string[]> = { -readonly [K in keyof N]: TestTenant };

/**
 * Adds a user to a tenant's org as a plain member, with an API token, the way createTenant makes
 * its user: another person of the same team, for tests of what members see of each other's work.
 */
export async function addMember(t: TestPlatform, tenant: Pick<TestTenant, "orgId">, name: string): Promise<TestTenant> {
  const userId = `${name}-${randomBytes(3).toString("hex")}@example.com`;
  const user = await t.admin.post("/v1/users", { user_id: userId, org_id: tenant.orgId }, { "X-Service-Org-Id": tenant.orgId });
  if (user.status !== 200) throw new Error(`create user failed: ${JSON.stringify(user.body)}`);
  const token = await t.admin.post("/v1/tokens", { name: "test", expiry_days: 1 }, { "X-Service-User-Id": userId });
  if (token.status !== 200) throw new Error(`create token failed: ${JSON.stringify(token.body)}`);
  const secret: string = token.body.data.secret;
  return { orgId: tenant.orgId, userId, token: secret, client: apiClient(t.url, secret) };
}
