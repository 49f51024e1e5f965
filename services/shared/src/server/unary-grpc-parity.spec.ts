import http2 from "node:http2";
import { gzipSync } from "node:zlib";
import { create, fromBinary, toBinary, toJson } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { DataService, GetDatasetRequestSchema, GetDatasetResponseSchema } from "../proto/data";
import { signPrincipal, type Principal } from "../auth";
import { createLogger } from "../telemetry";
import { startRpcServer, type RpcServer } from "./rpc-server";
import { MAX_REQUEST_BYTES } from "./unary-call";

// The unary gRPC fast path must be indistinguishable from Connect's gRPC handler, which it stands in
// for: a table of cases in the spirit of the Connect conformance suite (success, errors with
// details, metadata and trailers, deadlines, cancellation, oversized and malformed messages,
// compression, unknown methods, wrong content types), each sent to a server with the fast path and
// to one without, with everything a client can observe compared.

const SECRET = "k".repeat(64);
const PATH = "/hangar.data.v1.DataService/GetDataset";
const principal: Principal = { kind: "user", subject: "ada", orgId: "og_1", memberships: [{ orgId: "og_1", roles: ["owner"] }], isSystemAdmin: false };

interface Subject {
  server: RpcServer;
  /** The abort reasons the implementation's signal carried, in call order. */
  aborts: unknown[];
}
const subjects: Record<"fast" | "connect", Subject> = {} as never;

async function start(unaryFastPath: boolean): Promise<Subject> {
  const aborts: unknown[] = [];
  const server = await startRpcServer({
    name: "parity",
    port: 0,
    internalAuthSecret: SECRET,
    logger: createLogger("test", "silent"),
    unaryFastPath,
    routes: (router) =>
      router.service(DataService, {
        async getDataset(request, context: HandlerContext) {
          context.signal.addEventListener("abort", () => aborts.push(context.signal.reason));
          switch (request.datasetId) {
            case "missing":
              throw new ConnectError("dataset 'missing' not found", Code.NotFound, { "x-error-meta": "m" }, [
                { desc: GetDatasetRequestSchema, value: { datasetId: "missing" } },
              ]);
            case "bug":
              throw new Error("a bug with secrets in it");
            case "fails-after-metadata":
              context.responseHeader.set("x-answer-header", "h");
              context.responseTrailer.set("x-answer-trailer", "t");
              throw new ConnectError("refused after setting metadata", Code.FailedPrecondition);
            case "timeout":
              return { dataset: { datasetId: "timeout", description: `whole milliseconds: ${Number.isInteger(context.timeoutMs())}` } };
            case "slow":
              // Gives up when the call is given up, as implementations should (a query is cancelled).
              await new Promise((resolve, reject) => {
                const timer = setTimeout(resolve, 2_000);
                context.signal.addEventListener("abort", () => (clearTimeout(timer), reject(context.signal.reason)));
              });
          }
          context.responseHeader.set("x-answer-header", "h");
          context.responseTrailer.set("x-answer-trailer", "t");
          return { dataset: { datasetId: request.datasetId, description: context.requestHeader.get("x-echo") ?? "" } };
        },
      }),
  });
  return { server, aborts };
}

beforeAll(async () => {
  subjects.fast = await start(true);
  subjects.connect = await start(false);
});
afterAll(() => Promise.all(Object.values(subjects).map((subject) => subject.server.close())));

/** A request as a raw HTTP/2 client sends it: every header and byte chosen by the case. */
interface RawRequest {
  headers?: http2.OutgoingHttpHeaders;
  body?: Buffer;
  /** Reset the stream (CANCEL) this many ms after sending. */
  cancelAfterMs?: number;
}

/** What a client can observe of an answer, with the header values that legitimately vary (dates) left out. */
interface Observed {
  status?: number;
  contentType?: string;
  grpcStatus?: string;
  grpcMessage?: string;
  details?: string;
  metadata: Record<string, string>;
  message?: unknown;
  reset?: number;
}

function framed(payload: Uint8Array, compressed = false): Buffer {
  const out = Buffer.alloc(5 + payload.length);
  out[0] = compressed ? 1 : 0;
  out.writeUInt32BE(payload.length, 1);
  out.set(payload, 5);
  return out;
}
const requestFor = (datasetId: string) => framed(toBinary(GetDatasetRequestSchema, create(GetDatasetRequestSchema, { datasetId })));

function exchange(server: RpcServer, request: RawRequest): Promise<Observed> {
  const session = http2.connect(server.url);
  return new Promise((resolve) => {
    const stream = session.request({
      ":method": "POST",
      ":path": PATH,
      "content-type": "application/grpc+proto",
      te: "trailers",
      "x-hangar-principal": signPrincipal(principal, SECRET),
      ...request.headers,
    });
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (headers = h));
    stream.on("trailers", (t) => (trailers = t));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", () => {});
    stream.on("close", () => {
      session.close();
      resolve(observe(headers, trailers, Buffer.concat(chunks), request.cancelAfterMs === undefined ? undefined : stream.rstCode));
    });
    stream.end(request.body ?? requestFor("ds_1"));
    if (request.cancelAfterMs !== undefined) setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), request.cancelAfterMs);
  });
}

function observe(headers: http2.IncomingHttpHeaders, trailers: http2.IncomingHttpHeaders, body: Buffer, reset: number | undefined): Observed {
  const both = { ...headers, ...trailers };
  const grpcStatus = both["grpc-status"] as string | undefined;
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(both)) if (name.startsWith("x-")) metadata[name] = String(value);
  return {
    status: headers[":status"] === undefined ? undefined : Number(headers[":status"]),
    contentType: headers["content-type"],
    grpcStatus,
    grpcMessage: both["grpc-message"] === undefined ? undefined : decodeURIComponent(String(both["grpc-message"])),
    details: both["grpc-status-details-bin"] as string | undefined,
    metadata,
    message: grpcStatus === "0" ? toJson(GetDatasetResponseSchema, fromBinary(GetDatasetResponseSchema, body.subarray(5))) : undefined,
    reset,
  };
}

const cases: [string, RawRequest, Partial<Observed>][] = [
  ["unary success with request metadata, response headers and trailers", { headers: { "x-echo": "hello" } }, { grpcStatus: "0", message: { dataset: expect.objectContaining({ datasetId: "ds_1", description: "hello" }) } }],
  ["the application/grpc content type (no +proto)", { headers: { "content-type": "application/grpc" } }, { grpcStatus: "0" }],
  ["an error with metadata and details", { body: requestFor("missing") }, { grpcStatus: String(Code.NotFound), grpcMessage: "dataset 'missing' not found" }],
  [
    "an error after the implementation set response headers and trailers",
    { body: requestFor("fails-after-metadata") },
    { grpcStatus: String(Code.FailedPrecondition), metadata: { "x-answer-header": "h", "x-answer-trailer": "t" } },
  ],
  [
    "a grpc-timeout in microseconds: the implementation sees whole milliseconds",
    { headers: { "grpc-timeout": "1999999u" }, body: requestFor("timeout") },
    { grpcStatus: "0", message: { dataset: expect.objectContaining({ description: "whole milliseconds: true" }) } },
  ],
  ["an unexpected exception: a bare internal error", { body: requestFor("bug") }, { grpcStatus: String(Code.Internal), grpcMessage: "internal error" }],
  ["no signed principal", { headers: { "x-hangar-principal": "forged.value" } }, { grpcStatus: String(Code.Unauthenticated) }],
  ["a deadline the implementation overruns", { headers: { "grpc-timeout": "50m" }, body: requestFor("slow") }, { grpcStatus: String(Code.DeadlineExceeded) }],
  ["a malformed grpc-timeout", { headers: { "grpc-timeout": "soon" } }, { grpcStatus: String(Code.InvalidArgument) }],
  ["an empty request body", { body: Buffer.alloc(0) }, { grpcStatus: String(Code.Unimplemented) }],
  ["two request messages for a unary method", { body: Buffer.concat([requestFor("a"), requestFor("b")]) }, { grpcStatus: String(Code.Unimplemented) }],
  ["a compressed flag without grpc-encoding", { body: framed(Buffer.from([10, 1, 120]), true) }, { grpcStatus: String(Code.Internal) }],
  ["a frame shorter than its length prefix", { body: Buffer.from([0, 0, 0, 0, 9, 1]) }, { grpcStatus: String(Code.InvalidArgument) }],
  ["a request message over the size limit", { body: framed(Buffer.alloc(MAX_REQUEST_BYTES + 1)) }, { grpcStatus: String(Code.ResourceExhausted) }],
  ["a gzip-compressed request", { headers: { "grpc-encoding": "gzip" }, body: framed(gzipSync(toBinary(GetDatasetRequestSchema, create(GetDatasetRequestSchema, { datasetId: "ds_z" }))), true) }, { grpcStatus: "0" }],
  ["an unknown method", { headers: { ":path": "/hangar.data.v1.DataService/NoSuchMethod" } }, { status: 404 }],
  ["a content type that is not gRPC", { headers: { "content-type": "text/plain" } }, { status: 415 }],
];

test.each(cases)("%s: the fast path answers as Connect's handler does", async (_name, request, expected) => {
  const [fast, connect] = await Promise.all([exchange(subjects.fast.server, request), exchange(subjects.connect.server, request)]);
  expect(connect).toMatchObject(expected);
  expect(fast).toEqual(connect);
});

test("a malformed request message: the fast path says INVALID_ARGUMENT (the caller's bytes), where Connect's handler says INTERNAL", async () => {
  const request = { body: Buffer.from([0, 0, 0, 0, 2, 0xff, 0xff]) };
  const [fast, connect] = await Promise.all([exchange(subjects.fast.server, request), exchange(subjects.connect.server, request)]);
  expect([fast.grpcStatus, connect.grpcStatus]).toEqual([String(Code.InvalidArgument), String(Code.Internal)]);
});

test("a client that cancels: both abort the implementation's signal with Canceled", async () => {
  for (const subject of Object.values(subjects)) {
    subject.aborts.length = 0;
    await exchange(subject.server, { body: requestFor("slow"), cancelAfterMs: 100 });
    while (subject.aborts.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const codes = Object.values(subjects).map((subject) => ConnectError.from(subject.aborts[0]).code);
  expect(codes).toEqual([Code.Canceled, Code.Canceled]);
});
