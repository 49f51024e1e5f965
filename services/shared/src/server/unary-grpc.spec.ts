import http2 from "node:http2";
import { gzipSync } from "node:zlib";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type HandlerContext } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { DataService, GetDatasetRequestSchema, GetDatasetResponseSchema } from "../proto/data";
import { callerOf, signPrincipal, type Principal } from "../auth";
import { createLogger } from "../telemetry";
import { startRpcServer, type RpcServer } from "./rpc-server";

// The services' unary gRPC fast path, exercised with a raw HTTP/2 client so that every header and
// trailer is visible; Connect's own transport checks that what the fast path declines still works.

const SECRET = "k".repeat(64);
const principal: Principal = { kind: "user", subject: "ada", orgId: "og_1", memberships: [{ orgId: "og_1", roles: ["owner"] }], isSystemAdmin: false };
let server: RpcServer;
let lastSignal: AbortSignal | undefined;

beforeAll(async () => {
  server = await startRpcServer({
    name: "test",
    port: 0,
    internalAuthSecret: SECRET,
    logger: createLogger("test", "silent"),
    routes: (router) =>
      router.service(DataService, {
        async getDataset(request, context: HandlerContext) {
          lastSignal = context.signal;
          if (request.datasetId === "slow") await new Promise((resolve) => setTimeout(resolve, 500));
          if (request.datasetId === "missing") throw new ConnectError("dataset 'missing' not found", Code.NotFound);
          if (request.datasetId === "bug") throw new Error("a bug with secrets in it");
          // A plain object, as implementations may return: the fast path makes it a message.
          return { dataset: { datasetId: request.datasetId, createdBy: callerOf(context).subject } };
        },
      }),
  });
});
afterAll(() => server.close());

interface Answer {
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
}

/** One call with Node's own HTTP/2 client; resolves whatever came back. */
function call(datasetId: string, headers: http2.OutgoingHttpHeaders = {}, body?: Buffer): Promise<Answer> {
  const session = http2.connect(server.url);
  const payload = body ?? Buffer.from(toBinary(GetDatasetRequestSchema, create(GetDatasetRequestSchema, { datasetId })));
  const framed = body ? payload : Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), payload]);
  if (!body) framed.writeUInt32BE(payload.length, 1);
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ":method": "POST",
      ":path": "/hangar.data.v1.DataService/GetDataset",
      "content-type": "application/grpc+proto",
      te: "trailers",
      "x-hangar-principal": signPrincipal(principal, SECRET),
      ...headers,
    });
    const answer: Answer = { headers: {}, trailers: {}, body: Buffer.alloc(0) };
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (answer.headers = h));
    stream.on("trailers", (t) => (answer.trailers = t));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", reject);
    stream.on("close", () => {
      session.close();
      resolve({ ...answer, body: Buffer.concat(chunks) });
    });
    stream.end(framed);
  });
}

const statusOf = (answer: Answer) => answer.trailers["grpc-status"] ?? answer.headers["grpc-status"];

test("a unary call runs the interceptors and the implementation and answers message, then grpc-status 0 in trailers", async () => {
  const answer = await call("ds_1");
  expect(answer.headers[":status"]).toBe(200);
  expect(answer.headers["content-type"]).toBe("application/grpc+proto");
  expect(answer.trailers["grpc-status"]).toBe("0");
  const response = fromBinary(GetDatasetResponseSchema, answer.body.subarray(5));
  expect(response.dataset).toMatchObject({ datasetId: "ds_1", createdBy: "ada" });
});

test("an error is a trailers-only response with its code and percent-encoded message", async () => {
  const answer = await call("missing");
  expect(answer.headers["grpc-status"]).toBe(String(Code.NotFound));
  expect(decodeURIComponent(String(answer.headers["grpc-message"]))).toBe("dataset 'missing' not found");
  expect(answer.body.length).toBe(0);
});

test("an unexpected exception is a bare internal error: its message does not leak", async () => {
  const answer = await call("bug");
  expect(statusOf(answer)).toBe(String(Code.Internal));
  expect(String(answer.headers["grpc-message"])).toBe("internal%20error");
});

test("without a signed principal the call is refused before the implementation runs", async () => {
  const answer = await call("ds_1", { "x-hangar-principal": "forged.value" });
  expect(statusOf(answer)).toBe(String(Code.Unauthenticated));
});

test("a malformed request message is INVALID_ARGUMENT", async () => {
  const answer = await call("ds_1", {}, Buffer.from([0, 0, 0, 0, 2, 0xff, 0xff]));
  expect(statusOf(answer)).toBe(String(Code.InvalidArgument));
});

test("a frame whose length disagrees with the body is INVALID_ARGUMENT", async () => {
  const answer = await call("ds_1", {}, Buffer.from([0, 0, 0, 0, 9, 1]));
  expect(statusOf(answer)).toBe(String(Code.InvalidArgument));
});

test("a deadline the implementation overruns is DEADLINE_EXCEEDED, and the implementation's signal aborts", async () => {
  const answer = await call("slow", { "grpc-timeout": "50m" });
  expect(statusOf(answer)).toBe(String(Code.DeadlineExceeded));
  expect(lastSignal?.aborted).toBe(true);
});

test("a malformed grpc-timeout is INVALID_ARGUMENT", async () => {
  const answer = await call("ds_1", { "grpc-timeout": "soon" });
  expect(statusOf(answer)).toBe(String(Code.InvalidArgument));
});

test("what the fast path declines (the Connect protocol) is still served by Connect's handler", async () => {
  const transport = createConnectTransport({ baseUrl: server.url, httpVersion: "2" });
  const client = createClient(DataService, transport);
  const response = await client.getDataset({ datasetId: "ds_2" }, { headers: { "x-hangar-principal": signPrincipal(principal, SECRET) } });
  expect(response.dataset?.datasetId).toBe("ds_2");
});

test("a gzip-compressed gRPC request goes to Connect's handler, which decompresses it", async () => {
  const answer = await call("ds_1", { "grpc-encoding": "gzip" }, gzipFramed("ds_3"));
  expect(answer.trailers["grpc-status"]).toBe("0");
});

function gzipFramed(datasetId: string): Buffer {
  const compressed = gzipSync(toBinary(GetDatasetRequestSchema, create(GetDatasetRequestSchema, { datasetId })));
  const framed = Buffer.alloc(5 + compressed.length);
  framed[0] = 1;
  framed.writeUInt32BE(compressed.length, 1);
  framed.set(compressed, 5);
  return framed;
}

test("a client that resets the stream aborts the implementation's signal", async () => {
  lastSignal = undefined;
  const session = http2.connect(server.url);
  const payload = toBinary(GetDatasetRequestSchema, create(GetDatasetRequestSchema, { datasetId: "slow" }));
  const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, payload.length]), payload]);
  const stream = session.request({ ":method": "POST", ":path": "/hangar.data.v1.DataService/GetDataset", "content-type": "application/grpc", "x-hangar-principal": signPrincipal(principal, SECRET) });
  stream.on("error", () => {});
  stream.end(framed);
  await new Promise((resolve) => setTimeout(resolve, 50));
  stream.close(http2.constants.NGHTTP2_CANCEL);
  await new Promise((resolve) => setTimeout(resolve, 50));
  session.close();
  const signal = lastSignal as AbortSignal | undefined; // assigned by the implementation meanwhile
  expect(signal?.aborted).toBe(true);
  expect((signal?.reason as ConnectError).code).toBe(Code.Canceled);
});
