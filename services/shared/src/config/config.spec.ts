import { loadConfig } from "./config";

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
