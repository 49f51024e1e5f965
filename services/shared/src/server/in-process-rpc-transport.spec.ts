import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { DataService, DatasetSchema, type Dataset } from "../proto/data";
import { callerOf } from "../auth";
import { createLogger } from "../telemetry";
import { startRpcServer, type RpcServer } from "./rpc-server";
import { peerClient, type PeerLocation } from "./service-client";

// A peer client calls a service in process when the service runs in this thread (the embedded
// default) and over gRPC otherwise: the same principal reaches the implementation, the same errors,
// deadline and limits come back, and each side keeps its own copy of the messages.

const SECRET = "k".repeat(64);
let server: RpcServer;
const served: Dataset = create(DatasetSchema, { datasetId: "ds_1", name: "kept" });
let seenBy: string[] = [];

beforeAll(async () => {
  server = await startRpcServer({
    name: "test",
    port: 0,
    internalAuthSecret: SECRET,
    logger: createLogger("test", "silent"),
    routes: (router) =>
      router.service(DataService, {
        async getDataset(request, context) {
          const caller = callerOf(context);
          seenBy.push(`${caller.subject}@${caller.orgId}`);
          if (request.datasetId === "slow") await new Promise((resolve) => setTimeout(resolve, 500));
          if (request.datasetId === "missing") throw new ConnectError("dataset 'missing' not found", Code.NotFound);
          return { dataset: served };
        },
      }),
  });
});
afterAll(() => server.close());
beforeEach(() => (seenBy = []));

const locations: [string, () => PeerLocation][] = [
  ["in process", () => ({ url: server.url, inProcess: server.inProcess })],
  ["over gRPC", () => ({ url: server.url })],
];

describe.each(locations)("a peer client %s", (_, location) => {
  const client = (timeoutMs?: number) =>
    peerClient({ service: DataService, peer: "data", caller: "compute", orgId: "og_1", locate: location, internalAuthSecret: SECRET, ...(timeoutMs ? { timeoutMs } : {}) });

  test("acts as the calling service in the org, and gets a copy of the answer", async () => {
    const { dataset } = await client().getDataset({ datasetId: "ds_1" });
    expect(seenBy).toEqual(["compute@og_1"]);
    expect(dataset?.name).toBe("kept");
    dataset!.name = "changed by the caller";
    expect(served.name).toBe("kept");
  });

  test("gets the implementation's error code and message", async () => {
    const error = ConnectError.from(await client().getDataset({ datasetId: "missing" }).catch((e: unknown) => e));
    expect({ code: error.code, message: error.rawMessage }).toEqual({ code: Code.NotFound, message: "dataset 'missing' not found" });
  });

  test("is refused past a declared limit before the implementation runs", async () => {
    const error = ConnectError.from(await client().getDataset({ datasetId: "d".repeat(1001) }).catch((e: unknown) => e));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(seenBy).toEqual([]);
  });

  test("ends at its deadline with DEADLINE_EXCEEDED", async () => {
    const error = ConnectError.from(await client(50).getDataset({ datasetId: "slow" }).catch((e: unknown) => e));
    expect(error.code).toBe(Code.DeadlineExceeded);
  });
});
