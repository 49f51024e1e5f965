import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { platformOnOwnPostgres, startTestPlatform, waitFor, type TestPlatform } from "@hangar/test-harness";
import {
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as Status,
  ServerReflectionRequestSchema,
  ServerReflectionResponseSchema,
  v1alpha,
  type ServerReflectionRequest,
} from "@hangar/shared/proto/grpc";

// Issue 15, "readiness that means ready": every service's port answers the standard gRPC health
// protocol (what grpc-health-probe and Kubernetes' gRPC probes call) and server reflection (what
// grpcurl and buf curl call), to a plain @grpc/grpc-js client without the internal principal.
// Health is NOT_SERVING while the service's database does not answer; `process` stays SERVING.

// A protobuf service each port serves: assistant's and registry's own have no methods yet, so
// theirs is the internal HealthService that every service answers.
const SERVICES = {
  admin: "hangar.admin.v1.AdminService",
  data: "hangar.data.v1.DataService",
  compute: "hangar.compute.v1.ComputeService",
  assistant: "hangar.common.v1.HealthService",
  registry: "hangar.common.v1.HealthService",
} as const;
type Name = keyof typeof SERVICES;

const clients: grpc.Client[] = [];
afterAll(() => clients.forEach((client) => client.close()));

/** A generic grpc-js client of one service of `t` (closed after the file). */
function clientOf(t: TestPlatform, name: Name): grpc.Client {
  const client = new grpc.Client(new URL(t.platform.services[name].url).host, grpc.credentials.createInsecure());
  clients.push(client);
  return client;
}

const serialize = <I extends DescMessage>(schema: I) => (message: MessageShape<I>) => Buffer.from(toBinary(schema, message));
const deserialize = <O extends DescMessage>(schema: O) => (bytes: Buffer) => fromBinary(schema, bytes);

/** grpc.health.v1.Health/Check for `service`; resolves with the status or rejects with the gRPC error. */
function check(client: grpc.Client, service: string): Promise<Status> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      "/grpc.health.v1.Health/Check",
      serialize(HealthCheckRequestSchema),
      deserialize(HealthCheckResponseSchema),
      create(HealthCheckRequestSchema, { service }),
      new grpc.Metadata(),
      { deadline: Date.now() + 10_000 },
      (error, response) => (error ? reject(error) : resolve(response!.status)),
    );
  });
}

/** Sends `requests` on one reflection stream (v1 or v1alpha) and collects one answer per request. */
function reflect<Req extends DescMessage, Res extends DescMessage>(client: grpc.Client, version: "v1" | "v1alpha", request: Req, response: Res, requests: MessageShape<Req>[]): Promise<MessageShape<Res>[]> {
  const call = client.makeBidiStreamRequest(`/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`, serialize(request), deserialize(response), new grpc.Metadata());
  const answers: MessageShape<Res>[] = [];
  return new Promise((resolve, reject) => {
    call.on("data", (answer: MessageShape<Res>) => {
      answers.push(answer);
      if (answers.length === requests.length) call.end();
    });
    call.on("error", reject);
    call.on("end", () => resolve(answers));
    for (const message of requests) call.write(message);
  });
}

/** `buf curl` (the npm package's binary) in the gRPC protocol over h2c; resolves with its output. */
async function bufCurl(args: string[], url: string): Promise<string> {
  const buf = path.resolve(__dirname, "../../node_modules/.bin/buf");
  const { stdout } = await promisify(execFile)(buf, ["curl", "--protocol", "grpc", "--http2-prior-knowledge", ...args, url], { timeout: 30_000 });
  return stdout;
}

const v1 = (messageRequest: ServerReflectionRequest["messageRequest"]) => create(ServerReflectionRequestSchema, { messageRequest });

describe("a platform with its database up", () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform();
  });
  afterAll(() => t?.close());

  test.each(Object.keys(SERVICES) as Name[])("%s: Check is SERVING for the server, a service it serves and `process`, without a principal", async (name) => {
    const client = clientOf(t, name);
    expect(await Promise.all(["", SERVICES[name], "process"].map((service) => check(client, service)))).toEqual([Status.SERVING, Status.SERVING, Status.SERVING]);
  });

  test("Check of a service the port does not serve is NOT_FOUND", async () => {
    await expect(check(clientOf(t, "data"), SERVICES.admin)).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  test("a request over 16 KiB is refused (RESOURCE_EXHAUSTED): anyone who reaches the port may call these", async () => {
    await expect(check(clientOf(t, "data"), "x".repeat(20_000))).rejects.toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    expect(await check(clientOf(t, "data"), "process")).toBe(Status.SERVING);
  });

  test("reflection v1 lists the port's services and gives the file of a symbol with its imports", async () => {
    const [listed, found, missing] = await reflect(clientOf(t, "data"), "v1", ServerReflectionRequestSchema, ServerReflectionResponseSchema, [
      v1({ case: "listServices", value: "" }),
      v1({ case: "fileContainingSymbol", value: "hangar.data.v1.DataService.GetDataset" }),
      v1({ case: "fileContainingSymbol", value: "hangar.nothing.Here" }),
    ]);
    const names = listed!.messageResponse.case === "listServicesResponse" ? listed!.messageResponse.value.service.map((s) => s.name) : [];
    expect(names).toEqual(expect.arrayContaining([SERVICES.data, "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"]));
    expect(names).not.toContain(SERVICES.admin);

    expect(found!.messageResponse.case).toBe("fileDescriptorResponse");
    const files = found!.messageResponse.case === "fileDescriptorResponse" ? found!.messageResponse.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes)) : [];
    const service = files[0]!.service.find((s) => s.name === "DataService");
    expect(service?.method.map((m) => m.name)).toContain("GetDataset");
    // Every import of every file sent is in the answer too, so a client can build the descriptors.
    const sent = new Set(files.map((file) => file.name));
    expect(files.flatMap((file) => file.dependency).filter((name) => !sent.has(name))).toEqual([]);
    expect(sent).toContain("google/api/annotations.proto");

    expect(missing!.messageResponse).toMatchObject({ case: "errorResponse", value: { errorCode: grpc.status.NOT_FOUND } });
  });

  test("buf curl lists the services and calls Health/Check through reflection alone, with no protos of its own", async () => {
    const listed = await bufCurl(["--list-services"], t.platform.services.data.url);
    expect(listed.trim().split("\n")).toEqual(expect.arrayContaining([SERVICES.data, "grpc.health.v1.Health"]));
    const checked = await bufCurl(["--data", '{"service":"process"}'], `${t.platform.services.admin.url}/grpc.health.v1.Health/Check`);
    expect(JSON.parse(checked)).toEqual({ status: "SERVING" });
  });

  test("reflection v1alpha answers the same questions", async () => {
    const request = create(v1alpha.ServerReflectionRequestSchema, { messageRequest: { case: "listServices", value: "" } });
    const [listed] = await reflect(clientOf(t, "compute"), "v1alpha", v1alpha.ServerReflectionRequestSchema, v1alpha.ServerReflectionResponseSchema, [request]);
    const names = listed!.messageResponse.case === "listServicesResponse" ? listed!.messageResponse.value.service.map((s) => s.name) : [];
    expect(names).toContain(SERVICES.compute);
  });
});

describe("a platform whose PostgreSQL is halted", () => {
  const own = platformOnOwnPostgres();

  test("Check and Watch say NOT_SERVING while it is halted and SERVING once it is back; `process` stays SERVING", async () => {
    const client = clientOf(own.t, "data");
    const watched: Status[] = [];
    const watch = client.makeServerStreamRequest("/grpc.health.v1.Health/Watch", serialize(HealthCheckRequestSchema), deserialize(HealthCheckResponseSchema), create(HealthCheckRequestSchema, { service: "" }), new grpc.Metadata());
    watch.on("data", (answer: MessageShape<typeof HealthCheckResponseSchema>) => watched.push(answer.status));
    watch.on("error", () => undefined);
    await waitFor("Watch's first answer", async () => (watched.length > 0 ? true : undefined));
    expect(watched).toEqual([Status.SERVING]);

    await own.pg.call("halt");
    await waitFor("Check NOT_SERVING", async () => ((await check(client, "")) === Status.NOT_SERVING ? true : undefined));
    expect(await check(client, SERVICES.data)).toBe(Status.NOT_SERVING);
    expect(await check(client, "process")).toBe(Status.SERVING);
    await waitFor("Watch NOT_SERVING", async () => (watched.at(-1) === Status.NOT_SERVING ? true : undefined), 30_000);

    await own.pg.call("resume");
    await waitFor("Watch SERVING again", async () => (watched.at(-1) === Status.SERVING ? true : undefined), 60_000);
    expect(await check(client, "")).toBe(Status.SERVING);
    watch.cancel();
    expect(watched).toEqual([Status.SERVING, Status.NOT_SERVING, Status.SERVING]);
  }, 180_000);
});
