// Microbenchmark: the CPU of one in-process call from the gateway to a service, everything but the
// work of the implementation: the gateway's in-process client (the request's protobuf encoding, metadata, trace
// context, deadline) and the service's in-process endpoint with the interceptors every service
// runs (`startRpcServer`: metrics, tracing, error normalization, the signed principal, field
// limits). The implementation answers a fixed dataset at once. Run with
// `npm run bench:in-process-call` after `npm run build`; prints CPU µs per call for BENCH_RUNS runs.
import "./pinned-node.mjs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { create } = require("@bufbuild/protobuf");
const { timestampFromDate } = require("@bufbuild/protobuf/wkt");
const { createLogger, initTelemetry, shutdownTelemetry, signPrincipal, startRpcServer } = require("../services/shared/dist/index.js");
const { DataService, GetDatasetRequestSchema } = require("../services/shared/dist/proto/data.js");
const { createInProcessClient } = require("../gateway/dist/in-process-client.js");

const CALLS = Number(process.env.BENCH_CALLS ?? 50_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECRET = "k".repeat(64);

// As the platform's processes: telemetry started, no exporter configured.
initTelemetry("bench");
const now = timestampFromDate(new Date());
const server = await startRpcServer({
  name: "bench",
  port: 0,
  internalAuthSecret: SECRET,
  logger: createLogger("bench", "silent"),
  routes: (router) =>
    router.service(DataService, {
      getDataset: async (request) => ({
        dataset: { datasetId: request.datasetId, orgId: "og_1", name: "bench", createdBy: "admin", modifiedBy: "admin", created: now, modified: now, metadata: { a: 1 } },
      }),
    }),
});
const client = createInProcessClient(server.inProcess);
const principal = { kind: "user", subject: "admin", orgId: "og_1", memberships: [{ orgId: "og_1", roles: ["owner"] }], isSystemAdmin: false };
const request = create(GetDatasetRequestSchema, { datasetId: "ds_1234567890abcdefghij" });

/** `calls` calls from CONCURRENCY callers back to back (the principal signed once per run: signatures expire). */
async function run(calls) {
  const options = { headers: { "x-hangar-principal": signPrincipal(principal, SECRET) }, timeoutMs: 30_000 };
  const caller = async () => {
    for (let i = 0; i < calls / CONCURRENCY; i++) await client.call(DataService.method.getDataset, request, options);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, caller));
}

try {
  await run(CALLS / 2); // warm-up: the JIT and the principal verifier's cache
  for (let i = 0; i < RUNS; i++) {
    const before = process.cpuUsage();
    await run(CALLS);
    const spent = process.cpuUsage(before);
    console.log(`in-process call: ${((spent.user + spent.system) / CALLS).toFixed(1)} µs CPU per call (${CALLS} calls, ${CONCURRENCY} callers)`);
  }
} finally {
  client.close();
  await server.close();
  await shutdownTelemetry();
}
