// The platform under benchmark, started as `npm start` starts it, and the tenants the load comes from.
import http from "node:http";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../test/src/ports.mjs";
import { httpJson, startPlatformProcess, stopPlatformProcess } from "./lib.mjs";

/**
 * Starts the platform as `npm start` does, with its own embedded PostgreSQL (no `DATABASE_URL`), so a
 * benchmark measures the durability users get: PostgreSQL's defaults, `fsync` and
 * `synchronous_commit` on (the test harness's server turns both off; no faster setting is offered to
 * users). Event delivery is in-process and the runner is `process` unless `env` says otherwise
 * (`KAFKA_BROKERS`, `RUNNER`); variables this shell exports for the tests (`DATABASE_URL`,
 * `KAFKA_BROKERS`, `OBJECT_STORE_*`) are not passed on. Resolves with the gateway URL, the
 * bootstrap admin token (`env.BOOTSTRAP_TOKEN`, else a fresh one) and its org, the PostgreSQL URL
 * the platform uses (for seeding with SQL and the anchors) and its postmaster's pid (for CPU attribution), the child process, the
 * services' RPC URLs (when `LOG_LEVEL` is info or lower), an `api` (method, route, body, headers)
 * as that admin in that org and `stop()`, which also removes the data directory.
 */
export async function startBenchPlatform(env = {}) {
  const dataDir = await mkdtemp(path.join(tmpdir(), "hangar-bench-"));
  // As `./.data` would be: as root, the embedded PostgreSQL runs as a user of its own, which must reach its directory.
  await chmod(dataDir, 0o755);
  const token = env.BOOTSTRAP_TOKEN ?? `hgr_bench_${randomBytes(16).toString("hex")}`;
  const port = await freePort();
  const postgresPort = await freePort();
  const platform = await startPlatformProcess({
    DATABASE_URL: undefined,
    KAFKA_BROKERS: undefined,
    OBJECT_STORE_BUCKET: undefined,
    OBJECT_STORE_ENDPOINT: undefined,
    PORT: String(port),
    BOOTSTRAP_TOKEN: token,
    LOG_LEVEL: "warn",
    DATA_DIR: dataDir,
    OBJECT_STORE_PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(postgresPort),
    ...env,
  });
  const gateway = `http://127.0.0.1:${port}`;
  const postmasterPid = Number((await readFile(path.join(dataDir, "postgres", "postmaster.pid"), "utf8")).split("\n")[0]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  // Named on every call: the admin belongs to every org a benchmark creates as well.
  const orgId = (await httpJson(agent, "GET", `${gateway}/v1/orgs/caller`, token)).data[0].org_id;
  return {
    gateway,
    token,
    orgId,
    // As the platform connects (services/embedded/src/embedded-postgres.ts): over the Unix socket.
    pgUrl: `postgres://hangar:hangar@%2Ftmp:${postgresPort}/hangar`,
    postmasterPid,
    child: platform.child,
    services: platform.services,
    api: (method, route, body, headers) => httpJson(agent, method, `${gateway}${route}`, token, body, { "X-Service-Org-Id": orgId, ...headers }),
    /** A client acting with another token (another org's member). */
    apiAs: (otherToken) => (method, route, body, headers) => httpJson(agent, method, `${gateway}${route}`, otherToken, body, headers),
    async stop() {
      agent.destroy();
      await stopPlatformProcess(platform);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A new org (created by the bootstrap admin, `api`) with a member of its own and that member's API
 * token, so that load can come from more than one org and token as it does in production. Resolves
 * `{ orgId, token }`.
 */
export async function createTenant(api, name) {
  const org = (await api("POST", "/v1/orgs", { name })).data;
  const userId = `${name}-bench@example.com`;
  const asOrg = { "X-Service-Org-Id": org.org_id };
  await api("POST", "/v1/users", { user_id: userId, org_id: org.org_id }, asOrg);
  const created = (await api("POST", "/v1/tokens", { name: `${name}-token`, expiry_days: 1 }, { ...asOrg, "X-Service-User-Id": userId })).data;
  return { orgId: org.org_id, token: created.secret };
}
