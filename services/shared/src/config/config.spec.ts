import { loadConfig, loadObjectStoreServerConfig, loadRunnerConfig } from "./config";

test("the embedded platform's variables have documented defaults", () => {
  expect(loadConfig({})).toMatchObject({ embeddedPostgresPort: 54329, host: "127.0.0.1", runner: "process" });
});

test("the embedded platform's variables are read from the environment", () => {
  expect(loadConfig({ EMBEDDED_POSTGRES_PORT: "15432", HOST: "0.0.0.0", RUNNER: "none" })).toMatchObject({ embeddedPostgresPort: 15432, host: "0.0.0.0", runner: "none" });
});

test("bad values are reported together, each naming its variable", () => {
  expect(() => loadConfig({ EMBEDDED_POSTGRES_PORT: "0", RUNNER: "docker", PORT: "http" })).toThrow(
    "invalid configuration:\n  PORT must be an integer from 0 to 65535, got 'http'\n  EMBEDDED_POSTGRES_PORT must be an integer from 1 to 65535, got '0'\n  RUNNER must be one of process, container, none, got 'docker'",
  );
});

test("the compute service's and export settings have documented defaults", () => {
  expect(loadConfig({})).toMatchObject({
    compute: { runnerLeaseSeconds: 30, runnerHeartbeatTimeoutSeconds: 120, runnerSweepIntervalMs: 1000, invocationConcurrencyLimit: 4 },
    exportRetentionHours: 24,
  });
});

test("the compute service's and export settings are read from the environment", () => {
  const env = { RUNNER_LEASE_SECONDS: "5", RUNNER_HEARTBEAT_TIMEOUT_SECONDS: "10", RUNNER_SWEEP_INTERVAL_MS: "250", INVOCATION_CONCURRENCY_LIMIT: "8", EXPORT_RETENTION_HOURS: "2" };
  expect(loadConfig(env)).toMatchObject({
    compute: { runnerLeaseSeconds: 5, runnerHeartbeatTimeoutSeconds: 10, runnerSweepIntervalMs: 250, invocationConcurrencyLimit: 8 },
    exportRetentionHours: 2,
  });
});

test("the trigger scheduler's interval and the Slack webhooks are read from the environment", () => {
  expect(loadConfig({}).compute).toMatchObject({ triggerSchedulerIntervalMs: 1000, slackWebhooks: {} });
  const env = { TRIGGER_SCHEDULER_INTERVAL_MS: "200", SLACK_WEBHOOKS: "C1=https://hooks.example.com/a?x=1, C2=http://127.0.0.1:9/b" };
  expect(loadConfig(env).compute).toMatchObject({ triggerSchedulerIntervalMs: 200, slackWebhooks: { C1: "https://hooks.example.com/a?x=1", C2: "http://127.0.0.1:9/b" } });
  expect(() => loadConfig({ SLACK_WEBHOOKS: "C1" })).toThrow("SLACK_WEBHOOKS must be comma-separated <channel_id>=<http(s) url> pairs, got 'C1'");
});

test("the org's active-trigger cap defaults to 1000, is read from the environment and checked", () => {
  expect(loadConfig({}).compute.triggerActiveLimit).toBe(1000);
  expect(loadConfig({ TRIGGER_ACTIVE_LIMIT: "25" }).compute.triggerActiveLimit).toBe(25);
  expect(() => loadConfig({ TRIGGER_ACTIVE_LIMIT: "0" })).toThrow(/TRIGGER_ACTIVE_LIMIT/);
});

test("a bad runner or export setting fails the start instead of falling back silently", () => {
  expect(() => loadConfig({ RUNNER_LEASE_SECONDS: "abc", INVOCATION_CONCURRENCY_LIMIT: "0", EXPORT_RETENTION_HOURS: "-1" })).toThrow(
    "invalid configuration:\n  RUNNER_LEASE_SECONDS must be an integer from 1 to 86400, got 'abc'\n  INVOCATION_CONCURRENCY_LIMIT must be an integer from 1 to 100000, got '0'\n  EXPORT_RETENTION_HOURS must be an integer from 1 to 87600, got '-1'",
  );
});

test("a standalone runner's variables are read, and every missing or bad one is reported together", () => {
  const base = { COMPUTE_SERVICE_URL: "http://compute:50051", GATEWAY_URL: "http://gateway:8080", INTERNAL_AUTH_SECRET: "k".repeat(32) };
  expect(loadRunnerConfig({ ...base, RUNNER_EXECUTORS: "process, container", RUNNER_CONCURRENCY: "3" })).toEqual({
    computeUrl: "http://compute:50051",
    gatewayUrl: "http://gateway:8080",
    internalAuthSecret: "k".repeat(32),
    executors: ["process", "container"],
    concurrency: 3,
  });
  expect(() => loadRunnerConfig({ GATEWAY_URL: "http://gateway:8080", RUNNER_EXECUTORS: "vm", RUNNER_CONCURRENCY: "many" })).toThrow(
    "invalid configuration:\n  RUNNER_EXECUTORS must be one of process, container, got 'vm'\n  COMPUTE_SERVICE_URL is required\n  INTERNAL_AUTH_SECRET is required\n  RUNNER_CONCURRENCY must be an integer from 1 to 1024, got 'many'",
  );
});

test("the standalone object store's variables have defaults but for its root credential, which is required", () => {
  const keys = { OBJECT_STORE_ACCESS_KEY_ID: "HANGARDEVROOTKEY01", OBJECT_STORE_SECRET_ACCESS_KEY: "s".repeat(40) };
  expect(loadObjectStoreServerConfig(keys)).toEqual({
    host: "127.0.0.1",
    port: 9000,
    dataDir: "./.data",
    bucket: "hangar",
    region: "us-east-1",
    rootCredential: { accessKeyId: "HANGARDEVROOTKEY01", secretAccessKey: "s".repeat(40) },
  });
  const env = { ...keys, OBJECT_STORE_HOST: "0.0.0.0", OBJECT_STORE_PORT: "9100", DATA_DIR: "/data", OBJECT_STORE_BUCKET: "files", OBJECT_STORE_REGION: "eu-west-1" };
  expect(loadObjectStoreServerConfig(env)).toMatchObject({ host: "0.0.0.0", port: 9100, dataDir: "/data", bucket: "files", region: "eu-west-1" });
  expect(() => loadObjectStoreServerConfig({ OBJECT_STORE_PORT: "s3" })).toThrow(
    "invalid configuration:\n  OBJECT_STORE_PORT must be an integer from 0 to 65535, got 's3'\n  OBJECT_STORE_ACCESS_KEY_ID is required\n  OBJECT_STORE_SECRET_ACCESS_KEY is required",
  );
});

test("notification emails need SMTP_HOST; the other SMTP settings have documented defaults and are checked", () => {
  expect(loadConfig({}).smtp).toBeUndefined();
  expect(loadConfig({ SMTP_HOST: "mail.example.com" }).smtp).toEqual({ host: "mail.example.com", port: 587, secure: false, from: "hangar@localhost" });
  const env = { SMTP_HOST: "mail", SMTP_PORT: "465", SMTP_SECURE: "true", SMTP_USER: "u", SMTP_PASSWORD: "p", SMTP_FROM: "robots@example.com" };
  expect(loadConfig(env).smtp).toEqual({ host: "mail", port: 465, secure: true, user: "u", password: "p", from: "robots@example.com" });
  expect(() => loadConfig({ SMTP_HOST: "mail", SMTP_PORT: "0", SMTP_SECURE: "yes" })).toThrow(
    "invalid configuration:\n  SMTP_PORT must be an integer from 1 to 65535, got '0'\n  SMTP_SECURE must be one of true, false, got 'yes'",
  );
});
