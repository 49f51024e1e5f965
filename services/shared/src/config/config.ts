/**
 * One typed configuration loader: every variable is read and validated at start-up and all bad
 * ones are reported together, so a misconfigured deployment fails fast with one clear message.
 */
export interface PlatformConfig {
  /** Gateway HTTP port (`PORT`, default 8080). */
  port: number;
  /**
   * The base URL clients reach the gateway at (`PUBLIC_URL`, e.g. `https://hangar.example.com`);
   * unset: each request's own Host over http, right for one machine. Sign-in URLs are built on it.
   */
  publicUrl: string | undefined;
  /** PostgreSQL URL; unset means the embedded server (`DATABASE_URL`). */
  databaseUrl: string | undefined;
  /** Kafka bootstrap brokers; empty means in-process event delivery (`KAFKA_BROKERS`). */
  kafkaBrokers: string[];
  /**
   * Prefix of this deployment's Kafka topics and consumer groups (`KAFKA_NAMESPACE`, default none),
   * so that several deployments (staging beside production, test runs) can share one cluster.
   */
  kafkaNamespace: string | undefined;
  /** Secret of the bootstrap admin token; unset means a random one (`BOOTSTRAP_TOKEN`). */
  bootstrapToken: string | undefined;
  /** Where embedded state lives (`DATA_DIR`, default `./.data`). */
  dataDir: string;
  /** Port of the embedded S3-compatible endpoint (`OBJECT_STORE_PORT`, default 9000). */
  objectStorePort: number;
  /** Port of the embedded PostgreSQL on loopback (`EMBEDDED_POSTGRES_PORT`, default 54329). */
  embeddedPostgresPort: number;
  /** Interface the embedded platform's gateway binds (`HOST`, default 127.0.0.1: this machine only). */
  host: string;
  /** What runs actions in the embedded platform (`RUNNER`: `process`, the default, `container` or `none`). */
  runner: EmbeddedRunner;
  /** Key that signs the internal principal header (`INTERNAL_AUTH_SECRET`). */
  internalAuthSecret: string | undefined;
  /** Port of this process's RPC server in distributed mode (`RPC_PORT`, default 50051). */
  rpcPort: number;
  /** Port of a service process's Prometheus endpoint, `GET /metrics` over HTTP/1.1 (`METRICS_PORT`, default 9464). */
  metricsPort: number;
  /** `development` shows stack traces in error bodies (`NODE_ENV`). */
  development: boolean;
  /** Log level (`LOG_LEVEL`, default `info`). */
  logLevel: string;
  /** How long the gateway caches a verified token (`AUTH_CACHE_TTL_MS`, default 2000). */
  authCacheTtlMs: number;
  /** Upstream RPC base URLs by service name (`ADMIN_SERVICE_URL`, `DATA_SERVICE_URL`, ...). */
  serviceUrls: Partial<Record<ServiceName, string>>;
  /** An S3-compatible store for file bytes (`OBJECT_STORE_*`); unset means the embedded store. */
  s3: S3Config | undefined;
  /** The compute service's runner protocol and invocation limits. */
  compute: ComputeConfig;
  /** How long a finished export's archive and status are kept, in hours (`EXPORT_RETENTION_HOURS`, default 24). */
  exportRetentionHours: number;
  /** The SMTP server notification emails go through (`SMTP_*`); unset (no `SMTP_HOST`): no email is sent. */
  smtp: SmtpConfig | undefined;
}

/** Where the admin service sends notification emails. */
export interface SmtpConfig {
  /** `SMTP_HOST`. */
  host: string;
  /** `SMTP_PORT` (default 587, submission). */
  port: number;
  /** `SMTP_SECURE=true`: TLS from the start (port 465); else STARTTLS when the server offers it. */
  secure: boolean;
  /** `SMTP_USER` / `SMTP_PASSWORD`: else no authentication. */
  user?: string;
  password?: string;
  /** `SMTP_FROM`: the sender (default `hangar@localhost`). */
  from: string;
}

/** The compute service's settings. */
export interface ComputeConfig {
  /** How long a runner's claim or renewal holds an invocation (`RUNNER_LEASE_SECONDS`, default 30). */
  runnerLeaseSeconds: number;
  /** How long a running invocation without a lease may go without a heartbeat (`RUNNER_HEARTBEAT_TIMEOUT_SECONDS`, default 120). */
  runnerHeartbeatTimeoutSeconds: number;
  /** How often the sweeper looks for lapsed leases, timeouts and silent invocations (`RUNNER_SWEEP_INTERVAL_MS`, default 1000). */
  runnerSweepIntervalMs: number;
  /** How many invocations of one org may run at once (`INVOCATION_CONCURRENCY_LIMIT`, default 4). */
  invocationConcurrencyLimit: number;
  /** How often the trigger scheduler looks for due ticks (`TRIGGER_SCHEDULER_INTERVAL_MS`, default 1000). */
  triggerSchedulerIntervalMs: number;
  /** How long a trigger dispatch's claim holds before another replica retries it (`TRIGGER_DISPATCH_LEASE_SECONDS`, default 300). */
  triggerDispatchLeaseSeconds: number;
  /** How many triggers one org may have enabled, ingestion rules' own not counted (`TRIGGER_ACTIVE_LIMIT`, default 1000). */
  triggerActiveLimit: number;
  /**
   * The Slack channels trigger targets may post to: channel id to incoming-webhook URL
   * (`SLACK_WEBHOOKS`, comma-separated `<channel_id>=<url>` pairs; default none).
   */
  slackWebhooks: Record<string, string>;
}

/** Where file bytes live when an S3-compatible service holds them. */
export interface S3Config {
  /** `OBJECT_STORE_BUCKET`. */
  bucket: string;
  /** `OBJECT_STORE_REGION` (default us-east-1). */
  region: string;
  /** `OBJECT_STORE_ENDPOINT`: MinIO, Ceph and other non-AWS services. */
  endpoint?: string;
  /** `OBJECT_STORE_ROLE_ARN`: the role scoped upload and download credentials are minted from. */
  roleArn?: string;
  /** `OBJECT_STORE_ACCESS_KEY_ID` / `OBJECT_STORE_SECRET_ACCESS_KEY`: else the SDK's default chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `OBJECT_STORE_CREATE_BUCKET=true` creates the bucket at start. */
  createBucket: boolean;
}

/** The embedded platform's runner kinds; `none` leaves actions to runners that run elsewhere. */
export const EMBEDDED_RUNNERS = ["process", "container", "none"] as const;
export type EmbeddedRunner = (typeof EMBEDDED_RUNNERS)[number];

/** The five RPC services of the platform. */
export const SERVICE_NAMES = ["admin", "data", "compute", "assistant", "registry"] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

type Env = Record<string, string | undefined>;

/** Reads variables of one environment, collecting every bad one instead of stopping at the first. */
function envReader(env: Env) {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min = 0, max = 65535): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got '${raw.slice(0, 40)}'`);
      return fallback;
    }
    return value;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T, raw = env[name]): T => {
    if (raw === undefined || raw === "") return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    problems.push(`${name} must be one of ${allowed.join(", ")}, got '${raw.slice(0, 40)}'`);
    return fallback;
  };
  const required = (name: string): string => {
    const raw = env[name];
    if (!raw) problems.push(`${name} is required`);
    return raw ?? "";
  };
  const fail = () => {
    if (problems.length > 0) throw new Error(`invalid configuration:\n  ${problems.join("\n  ")}`);
  };
  return { int, oneOf, required, problems, fail };
}

// `C1=https://hooks.slack.com/...,C2=...`: URLs hold no commas or '=' before their query.
function slackWebhooks(raw: string | undefined, problems: string[]): Record<string, string> {
  const hooks: Record<string, string> = {};
  for (const pair of (raw ?? "").split(",").map((p) => p.trim()).filter(Boolean)) {
    const at = pair.indexOf("=");
    const url = pair.slice(at + 1);
    if (at <= 0 || !/^https?:\/\//.test(url)) problems.push(`SLACK_WEBHOOKS must be comma-separated <channel_id>=<http(s) url> pairs, got '${pair.slice(0, 40)}'`);
    else hooks[pair.slice(0, at)] = url;
  }
  return hooks;
}

/** Reads the configuration from the environment, throwing one error that lists every bad variable. */
export function loadConfig(env: Env = process.env): PlatformConfig {
  const { int, oneOf, problems, fail } = envReader(env);
  const serviceUrls: Partial<Record<ServiceName, string>> = {};
  for (const name of SERVICE_NAMES) {
    const url = env[`${name.toUpperCase()}_SERVICE_URL`];
    if (url) serviceUrls[name] = url;
  }
  const config: PlatformConfig = {
    port: int("PORT", 8080),
    publicUrl: env.PUBLIC_URL?.replace(/\/+$/, "") || undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    kafkaBrokers: (env.KAFKA_BROKERS ?? "").split(",").map((b) => b.trim()).filter(Boolean),
    kafkaNamespace: env.KAFKA_NAMESPACE || undefined,
    bootstrapToken: env.BOOTSTRAP_TOKEN || undefined,
    dataDir: env.DATA_DIR || "./.data",
    objectStorePort: int("OBJECT_STORE_PORT", 9000),
    embeddedPostgresPort: int("EMBEDDED_POSTGRES_PORT", 54329, 1),
    host: env.HOST || "127.0.0.1",
    runner: oneOf("RUNNER", EMBEDDED_RUNNERS, "process"),
    internalAuthSecret: env.INTERNAL_AUTH_SECRET || undefined,
    rpcPort: int("RPC_PORT", 50051),
    metricsPort: int("METRICS_PORT", 9464),
    development: env.NODE_ENV === "development",
    logLevel: env.LOG_LEVEL || "info",
    authCacheTtlMs: int("AUTH_CACHE_TTL_MS", 2000, 0, 3_600_000),
    serviceUrls,
    s3: env.OBJECT_STORE_BUCKET ? s3Config(env, env.OBJECT_STORE_BUCKET) : undefined,
    compute: {
      runnerLeaseSeconds: int("RUNNER_LEASE_SECONDS", 30, 1, 86_400),
      runnerHeartbeatTimeoutSeconds: int("RUNNER_HEARTBEAT_TIMEOUT_SECONDS", 120, 1, 86_400),
      runnerSweepIntervalMs: int("RUNNER_SWEEP_INTERVAL_MS", 1000, 10, 3_600_000),
      invocationConcurrencyLimit: int("INVOCATION_CONCURRENCY_LIMIT", 4, 1, 100_000),
      triggerSchedulerIntervalMs: int("TRIGGER_SCHEDULER_INTERVAL_MS", 1000, 10, 60_000),
      triggerDispatchLeaseSeconds: int("TRIGGER_DISPATCH_LEASE_SECONDS", 300, 30, 86_400),
      triggerActiveLimit: int("TRIGGER_ACTIVE_LIMIT", 1000, 1, 1_000_000),
      slackWebhooks: slackWebhooks(env.SLACK_WEBHOOKS, problems),
    },
    exportRetentionHours: int("EXPORT_RETENTION_HOURS", 24, 1, 87_600),
    smtp: env.SMTP_HOST
      ? { host: env.SMTP_HOST, port: int("SMTP_PORT", 587, 1), secure: oneOf("SMTP_SECURE", ["true", "false"], "false") === "true", ...smtpLogin(env), from: env.SMTP_FROM || "hangar@localhost" }
      : undefined,
  };
  if (config.databaseUrl && !/^postgres(ql)?:\/\//.test(config.databaseUrl)) {
    problems.push("DATABASE_URL must be a postgres:// URL");
  }
  if (config.internalAuthSecret !== undefined && config.internalAuthSecret.length < 32) {
    problems.push("INTERNAL_AUTH_SECRET must be at least 32 characters");
  }
  fail();
  return config;
}

function s3Config(env: Env, bucket: string): S3Config {
  return {
    bucket,
    region: env.OBJECT_STORE_REGION || "us-east-1",
    ...(env.OBJECT_STORE_ENDPOINT ? { endpoint: env.OBJECT_STORE_ENDPOINT } : {}),
    ...(env.OBJECT_STORE_ROLE_ARN ? { roleArn: env.OBJECT_STORE_ROLE_ARN } : {}),
    ...(env.OBJECT_STORE_ACCESS_KEY_ID ? { accessKeyId: env.OBJECT_STORE_ACCESS_KEY_ID } : {}),
    ...(env.OBJECT_STORE_SECRET_ACCESS_KEY ? { secretAccessKey: env.OBJECT_STORE_SECRET_ACCESS_KEY } : {}),
    createBucket: env.OBJECT_STORE_CREATE_BUCKET === "true",
  };
}

function smtpLogin(env: Env): Pick<SmtpConfig, "user" | "password"> {
  return { ...(env.SMTP_USER ? { user: env.SMTP_USER } : {}), ...(env.SMTP_PASSWORD ? { password: env.SMTP_PASSWORD } : {}) };
}

/** The executors a standalone runner may offer. */
export const RUNNER_EXECUTORS = ["process", "container"] as const;
export type RunnerExecutor = (typeof RUNNER_EXECUTORS)[number];

/** A standalone runner's configuration (`node runner/dist/main.js`). */
export interface RunnerConfig {
  /** `COMPUTE_SERVICE_URL`, `GATEWAY_URL`, `INTERNAL_AUTH_SECRET`: required. */
  computeUrl: string;
  gatewayUrl: string;
  internalAuthSecret: string;
  /** `RUNNER_ID` (default host-pid-random). */
  runnerId?: string;
  /** `RUNNER_EXECUTORS`: `process`, `container` or both, comma-separated (default `process`). */
  executors?: RunnerExecutor[];
  /** `RUNNER_CONCURRENCY`: invocations at once (default 2). */
  concurrency?: number;
  /** `RUNNER_POLL_INTERVAL_MS`: the idle poll (default 500). */
  pollIntervalMs?: number;
  /** `RUNNER_WORK_DIR`, `RUNNER_ORG_ID`, `RUNNER_CONTAINER_CLI`, `RUNNER_CONTAINER_NETWORK`. */
  workDir?: string;
  orgId?: string;
  containerCli?: string;
  containerNetwork?: string;
}

/** Reads a standalone runner's configuration, throwing one error that lists every bad or missing variable. */
export function loadRunnerConfig(env: Env = process.env): RunnerConfig {
  const { int, oneOf, required, fail } = envReader(env);
  const executors = env.RUNNER_EXECUTORS?.split(",").map((executor) => oneOf("RUNNER_EXECUTORS", RUNNER_EXECUTORS, "process", executor.trim()));
  const config: RunnerConfig = {
    computeUrl: required("COMPUTE_SERVICE_URL"),
    gatewayUrl: required("GATEWAY_URL"),
    internalAuthSecret: required("INTERNAL_AUTH_SECRET"),
    ...(env.RUNNER_ID ? { runnerId: env.RUNNER_ID } : {}),
    ...(executors ? { executors } : {}),
    ...(env.RUNNER_CONCURRENCY ? { concurrency: int("RUNNER_CONCURRENCY", 2, 1, 1024) } : {}),
    ...(env.RUNNER_POLL_INTERVAL_MS ? { pollIntervalMs: int("RUNNER_POLL_INTERVAL_MS", 500, 10, 3_600_000) } : {}),
    ...(env.RUNNER_WORK_DIR ? { workDir: env.RUNNER_WORK_DIR } : {}),
    ...(env.RUNNER_ORG_ID ? { orgId: env.RUNNER_ORG_ID } : {}),
    ...(env.RUNNER_CONTAINER_CLI ? { containerCli: env.RUNNER_CONTAINER_CLI } : {}),
    ...(env.RUNNER_CONTAINER_NETWORK ? { containerNetwork: env.RUNNER_CONTAINER_NETWORK } : {}),
  };
  fail();
  return config;
}

/** The standalone object store's configuration (`node services/object-store/dist/main.js`). */
export interface ObjectStoreServerConfig {
  /** `OBJECT_STORE_HOST`: the interface it listens on (default 127.0.0.1; `0.0.0.0` in a container). */
  host: string;
  /** `OBJECT_STORE_PORT` (default 9000). */
  port: number;
  /** `DATA_DIR`: objects, their metadata and the issued credentials (default `./.data`). */
  dataDir: string;
  /** `OBJECT_STORE_BUCKET` (default `hangar`) and `OBJECT_STORE_REGION` (default us-east-1), as the data service signs for them. */
  bucket: string;
  region: string;
  /**
   * `OBJECT_STORE_ACCESS_KEY_ID` and `OBJECT_STORE_SECRET_ACCESS_KEY`, required: the root credential
   * the data service uses for its own reads and writes, its presigned URLs and STS AssumeRole.
   */
  rootCredential: { accessKeyId: string; secretAccessKey: string };
}

/**
 * Reads the standalone object store's configuration: the same `OBJECT_STORE_*` names the data
 * service reads, so one ConfigMap and one Secret configure both sides. Throws one error listing
 * every bad or missing variable.
 */
export function loadObjectStoreServerConfig(env: Env = process.env): ObjectStoreServerConfig {
  const { int, required, fail } = envReader(env);
  const config: ObjectStoreServerConfig = {
    host: env.OBJECT_STORE_HOST || "127.0.0.1",
    port: int("OBJECT_STORE_PORT", 9000),
    dataDir: env.DATA_DIR || "./.data",
    bucket: env.OBJECT_STORE_BUCKET || "hangar",
    region: env.OBJECT_STORE_REGION || "us-east-1",
    rootCredential: { accessKeyId: required("OBJECT_STORE_ACCESS_KEY_ID"), secretAccessKey: required("OBJECT_STORE_SECRET_ACCESS_KEY") },
  };
  fail();
  return config;
}
