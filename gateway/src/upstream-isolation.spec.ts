import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { createLogger, signPrincipal, startRpcServer, type Principal, type RpcServer } from "@hangar/shared";
import { DataService, GetDatasetRequestSchema } from "@hangar/shared/proto/data";
import { createGrpcUnaryClient, type GrpcUnaryClient } from "./grpc-unary-client";
import type { SessionOptions } from "./h2/session";

// Issue 9, finding 3: one caller's oversized and cancelled calls must never fail another caller's
// calls on the connection they share (the gateway multiplexes every org over one connection per
// service). Against the services' real server start-up, so its HTTP/2 limits are the ones tested.

const SECRET = "s".repeat(64);
/** Larger than the gateway accepts (4 MiB), so the gateway gives up on these responses. */
const BIG_DESCRIPTION = "x".repeat(6 * 1024 * 1024);
let server: RpcServer;

beforeAll(async () => {
  server = await startRpcServer({
    name: "isolation",
    port: 0,
    internalAuthSecret: SECRET,
    logger: createLogger("test", "silent"),
    routes: (router) =>
      router.service(DataService, {
        async getDataset(request, context: HandlerContext) {
          if (request.datasetId === "big") return { dataset: { datasetId: "big", description: BIG_DESCRIPTION } };
          // Answers only when the call is given up (the caller's deadline, here and at the service).
          if (request.datasetId === "stall") await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
          return { dataset: { datasetId: request.datasetId } };
        },
      }),
  });
});
afterAll(() => server.close());

const principal = (orgId: string): Principal => ({ kind: "user", subject: `u_${orgId}`, orgId, memberships: [{ orgId, roles: ["owner"] }], isSystemAdmin: false });

function getDataset(client: GrpcUnaryClient, orgId: string, datasetId: string, timeoutMs: number) {
  const options = { headers: { "x-hangar-principal": signPrincipal(principal(orgId), SECRET) }, timeoutMs };
  return client.call(DataService.method.getDataset, create(GetDatasetRequestSchema, { datasetId }), options).then(
    (response) => response.dataset?.datasetId ?? "",
    (error: unknown) => ConnectError.from(error),
  );
}

/** One wave of the noisy org: oversized answers and a burst of calls cancelled at their deadline. */
function noisyWave(client: GrpcUnaryClient) {
  const big = Array.from({ length: 12 }, () => getDataset(client, "og_noisy", "big", 30_000));
  const cancelled = Array.from({ length: 600 }, () => getDataset(client, "og_noisy", "stall", 20));
  return Promise.all([...big, ...cancelled]);
}

test.each<[string, SessionOptions]>([
  ["the gateway's client (cancels past its reset budget are abandoned, not reset)", {}],
  ["a client that resets every call it cancels", { resetBurst: 1e9, resetsPerSecond: 1e9 }],
])("another org's calls all succeed while one org's calls are oversized and cancelled: %s", async (_name, connection) => {
  const client = createGrpcUnaryClient(server.url, connection);
  try {
    for (let wave = 0; wave < 2; wave++) {
      const noisy = noisyWave(client);
      const quiet = await Promise.all(Array.from({ length: 200 }, (_, i) => getDataset(client, "og_quiet", `ds_${wave}_${i}`, 30_000)));
      expect(quiet).toEqual(Array.from({ length: 200 }, (_, i) => `ds_${wave}_${i}`));
      // The noisy org's own calls fail for their own reasons only: never a lost connection.
      const codes = new Set((await noisy).map((outcome) => (outcome instanceof ConnectError ? outcome.code : "ok")));
      expect([...codes].sort()).toEqual([Code.ResourceExhausted, Code.DeadlineExceeded].sort());
    }
  } finally {
    client.close();
  }
});
