import { create, toJson } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { createLogger, initTelemetry, shutdownTelemetry, signPrincipal, startRpcServer, type Principal, type RpcServer } from "@hangar/shared";
import { DataService, GetDatasetRequestSchema, GetDatasetResponseSchema } from "@hangar/shared/proto/data";
import { createGrpcUnaryClient, type GrpcUnaryClient, type UnaryCallOptions } from "./grpc-unary-client";
import { createInProcessClient } from "./in-process-client";

// The gateway reaches the services of the embedded platform in process and those of a distributed
// deployment over gRPC; a caller must not be able to tell which. Each case makes the same call
// through both clients of one real service (startRpcServer: its interceptors for tracing, error
// normalization, the signed principal and field limits) and compares everything the gateway and
// the implementation observe: the response or the error's code and message, the metadata, the
// deadline the implementation is given and whether its work was cancelled.

const SECRET = "k".repeat(64);
const principal: Principal = { kind: "user", subject: "ada", orgId: "og_1", memberships: [{ orgId: "og_1", roles: ["owner"] }], isSystemAdmin: false };
const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";

/** What the implementation saw of each call, by the dataset id it was asked for. */
const seen = new Map<string, { timeoutMs: number | undefined; aborted?: Code; principal?: string | null }>();
let server: RpcServer;
const clients: Record<"grpc" | "inProcess", GrpcUnaryClient> = {} as never;

beforeAll(async () => {
  // Installs the W3C trace-context propagator, as the platform's processes do.
  initTelemetry("test");
  server = await startRpcServer({
    name: "parity",
    port: 0,
    internalAuthSecret: SECRET,
    logger: createLogger("test", "silent"),
    routes: (router) => router.service(DataService, { getDataset: implementation }),
  });
  clients.grpc = createGrpcUnaryClient(server.url);
  clients.inProcess = createInProcessClient(server.inProcess);
});
afterAll(async () => {
  for (const client of Object.values(clients)) client.close();
  await server.close();
  await shutdownTelemetry();
});

async function implementation(request: { datasetId: string }, context: HandlerContext) {
  const id = request.datasetId.split(":")[0]!;
  const record: { timeoutMs: number | undefined; aborted?: Code } = { timeoutMs: context.timeoutMs() };
  seen.set(id, record);
  context.signal.addEventListener("abort", () => (record.aborted = ConnectError.from(context.signal.reason).code));
  switch (id) {
    case "missing":
      throw new ConnectError(`dataset '${id}' not found`, Code.NotFound, { "x-error-meta": "m" });
    case "bug":
      throw new Error("a bug with secrets in it");
    case "long":
      throw new ConnectError(`a message far too long: ${"x".repeat(10_000)}`, Code.FailedPrecondition);
    case "slow":
      // Gives up when the call is given up, as implementations should (a query is cancelled).
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, 2_000);
        context.signal.addEventListener("abort", () => (clearTimeout(timer), reject(context.signal.reason)));
      });
  }
  const echo = ["x-echo", "traceparent", "user-agent"].map((name) => `${name}=${context.requestHeader.get(name) ?? ""}`).join(" ");
  return { dataset: { datasetId: request.datasetId, orgId: context.protocolName, description: echo } };
}

/** A call's outcome as the gateway sees it: the response as JSON, or the error's code and message. */
async function outcome(client: GrpcUnaryClient, datasetId: string, options: Partial<UnaryCallOptions> = {}) {
  const call = { headers: { "x-hangar-principal": signPrincipal(principal, SECRET), ...options.headers }, timeoutMs: options.timeoutMs ?? 5_000, traceContext: options.traceContext ?? ROOT_CONTEXT };
  try {
    const response = await client.call(DataService.method.getDataset, create(GetDatasetRequestSchema, { datasetId }), call);
    return { response: toJson(GetDatasetResponseSchema, response) };
  } catch (error) {
    const { code, rawMessage } = ConnectError.from(error);
    return { code, message: rawMessage };
  }
}

const traced = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: "b7ad6b7169203331", traceFlags: TraceFlags.SAMPLED });

const cases: [string, string, Partial<UnaryCallOptions>, object][] = [
  ["success, with request metadata and trace context", "ds_1", { headers: { "x-echo": "hello" }, traceContext: traced }, { response: { dataset: expect.objectContaining({ datasetId: "ds_1", orgId: "grpc" }) } }],
  ["an error of the implementation", "missing", {}, { code: Code.NotFound, message: "dataset 'missing' not found" }],
  ["an unexpected exception: a bare internal error", "bug", {}, { code: Code.Internal, message: "internal error" }],
  ["an error message capped in length", "long", {}, { code: Code.FailedPrecondition, message: expect.stringMatching(/^a message far too long/) }],
  ["a forged principal", "ds_2", { headers: { "x-hangar-principal": "forged.value" } }, { code: Code.Unauthenticated }],
  ["a field over its declared limit", `ds_3:${"x".repeat(1_001)}`, {}, { code: Code.InvalidArgument, message: expect.stringContaining("dataset_id") }],
  ["a request message over the size limit", `ds_4:${"x".repeat(4 * 1024 * 1024)}`, {}, { code: Code.ResourceExhausted }],
];

test.each(cases)("%s: in process as over gRPC", async (_name, datasetId, options, expected) => {
  const grpc = await outcome(clients.grpc, datasetId, options);
  const inProcess = await outcome(clients.inProcess, datasetId, options);
  expect(grpc).toMatchObject(expected);
  expect(inProcess).toEqual(grpc);
});

test("the trace context and metadata reach the implementation, alike both ways", async () => {
  const options = { headers: { "x-echo": "hello" }, traceContext: traced };
  const [grpc, inProcess] = [await outcome(clients.grpc, "ds_5", options), await outcome(clients.inProcess, "ds_5", options)];
  const description = (result: { response?: unknown }) => (result.response as { dataset: { description: string } }).dataset.description;
  expect(description(grpc)).toMatch(new RegExp(`^x-echo=hello traceparent=00-${TRACE_ID}-[0-9a-f]{16}-01 user-agent=$`));
  expect(description(inProcess)).toEqual(description(grpc));
});

test("the implementation is given the caller's deadline", async () => {
  for (const client of Object.values(clients)) {
    await outcome(client, "ds_6", { timeoutMs: 3_000 });
    expect(seen.get("ds_6")!.timeoutMs).toBeGreaterThan(2_000);
    expect(seen.get("ds_6")!.timeoutMs).toBeLessThanOrEqual(3_000);
  }
});

test("a deadline the implementation overruns: DEADLINE_EXCEEDED, and the implementation's work is cancelled", async () => {
  for (const client of Object.values(clients)) {
    seen.delete("slow");
    expect(await outcome(client, "slow", { timeoutMs: 100 })).toEqual({ code: Code.DeadlineExceeded, message: "upstream deadline exceeded" });
    while (seen.get("slow")?.aborted === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    // The gateway cancels at its deadline and the service ends the call at the same deadline:
    // whichever comes first, the implementation's signal is aborted.
    expect([Code.Canceled, Code.DeadlineExceeded]).toContain(seen.get("slow")!.aborted);
  }
});

test("an unknown method is UNIMPLEMENTED either way", async () => {
  const unknown = { ...DataService.method.getDataset, name: "NoSuchMethod" };
  for (const client of Object.values(clients)) {
    const call = client.call(unknown, create(GetDatasetRequestSchema, { datasetId: "ds_7" }), { headers: {}, timeoutMs: 5_000 });
    await expect(call).rejects.toMatchObject({ code: Code.Unimplemented });
  }
});

test("a caller that gives up: the in-process call fails with CANCELED and the implementation's signal says Canceled, as for a reset stream", async () => {
  const controller = new AbortController();
  seen.delete("slow");
  const request = new Uint8Array(Buffer.from([10, 4, ...Buffer.from("slow")]));
  const call = server.inProcess.call("/hangar.data.v1.DataService/GetDataset", request, {
    metadata: { "x-hangar-principal": signPrincipal(principal, SECRET) },
    timeoutMs: 5_000,
    signal: controller.signal,
  });
  while (!seen.has("slow")) await new Promise((resolve) => setTimeout(resolve, 10));
  controller.abort();
  await expect(call).rejects.toMatchObject({ code: Code.Canceled });
  expect(seen.get("slow")!.aborted).toBe(Code.Canceled);
});

test("a stopped service: UNAVAILABLE either way, as a closed port answers", async () => {
  const stopped = await startRpcServer({
    name: "stopped",
    port: 0,
    internalAuthSecret: SECRET,
    logger: createLogger("test", "silent"),
    routes: (router) => router.service(DataService, { getDataset: implementation }),
  });
  const both = [createGrpcUnaryClient(stopped.url), createInProcessClient(stopped.inProcess)];
  await stopped.close();
  for (const client of both) {
    const call = client.call(DataService.method.getDataset, create(GetDatasetRequestSchema, { datasetId: "ds_8" }), { headers: {}, timeoutMs: 5_000 });
    await expect(call).rejects.toMatchObject({ code: Code.Unavailable });
    client.close();
  }
});
