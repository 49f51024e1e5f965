import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { DataService } from "../proto/data";
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from "../auth";
import { createLogger } from "../telemetry";
import { startRpcServer, type RpcServer } from "./rpc-server";

// What startRpcServer adds around every call: the declared request limits, and error messages
// capped in length, on gRPC as on any other protocol.

const SECRET = "k".repeat(64);
const principal: Principal = { kind: "user", subject: "ada", orgId: "og_1", memberships: [{ orgId: "og_1", roles: ["owner"] }], isSystemAdmin: false };
let server: RpcServer;
let handled: string[] = [];

beforeAll(async () => {
  server = await startRpcServer({
    name: "test",
    port: 0,
    internalAuthSecret: SECRET,
    logger: createLogger("test", "silent"),
    routes: (router) =>
      router.service(DataService, {
        async getDataset(request) {
          handled.push(request.datasetId);
          throw new ConnectError(`echo ${request.datasetId.repeat(10)}`, Code.NotFound);
        },
      }),
  });
});
afterAll(() => server.close());
beforeEach(() => (handled = []));

function client() {
  const transport = createGrpcTransport({ baseUrl: server.url, interceptors: [(next) => (req) => (req.header.set(PRINCIPAL_HEADER, signPrincipal(principal, SECRET)), next(req))] });
  return createClient(DataService, transport);
}

async function errorOf(datasetId: string): Promise<ConnectError> {
  return ConnectError.from(await client().getDataset({ datasetId }).catch((e: unknown) => e));
}

test("a request past a declared limit is INVALID_ARGUMENT naming the field, and no handler runs", async () => {
  const error = await errorOf("d".repeat(1001));
  expect({ code: error.code, message: error.rawMessage }).toEqual({ code: Code.InvalidArgument, message: "dataset_id: at most 1000 characters" });
  expect(handled).toEqual([]);
});

test("a handler's error message is cut to 1,024 characters on the wire", async () => {
  const error = await errorOf("d".repeat(1000));
  expect(handled).toHaveLength(1);
  expect(error.code).toBe(Code.NotFound);
  expect(error.rawMessage).toBe(`echo ${"d".repeat(1016)}...`);
});
