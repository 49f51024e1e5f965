import * as grpc from "@grpc/grpc-js";
import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { signPrincipal, type Principal } from "@hangar/shared";
import { GetCurrentUserRequestSchema, GetCurrentUserResponseSchema } from "@hangar/shared/proto/admin";
import {
  CountCompleteSessionsRequestSchema,
  CountCompleteSessionsResponseSchema,
  GetDatasetRequestSchema,
  GetDatasetResponseSchema,
  MarkFilesIngestableRequestSchema,
  MarkFilesIngestableResponseSchema,
  SetIngestionPathRulesRequestSchema,
  SetIngestionPathRulesResponseSchema,
} from "@hangar/shared/proto/data";
import { startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// Interop: a plain @grpc/grpc-js client (no Connect) calls the services directly, with protobuf-es
// doing only the (de)serialisation. Services trust nothing but a principal signed with the
// internal key, so the gateway cannot be bypassed.

const GET_DATASET = "/hangar.data.v1.DataService/GetDataset";
const GET_CURRENT_USER = "/hangar.admin.v1.AdminService/GetCurrentUser";
const PRINCIPAL_HEADER = "x-hangar-principal";

let t: TestPlatform;
let alice: TestTenant;
let datasetId: string;
const clients = new Map<string, grpc.Client>();

beforeAll(async () => {
  [t, alice] = await startWithTenants(["alice"]);
  const created = await alice.client.post("/v1/datasets", { name: "over-grpc", tags: ["direct"] });
  if (created.status !== 200) throw new Error(`create dataset failed: ${JSON.stringify(created.body)}`);
  datasetId = created.body.data.dataset_id;
});
afterAll(async () => {
  for (const client of clients.values()) client.close();
  await t?.close();
});

/** A generic grpc-js client of one service, from its `http://host:port` URL (one per service). */
function clientOf(serviceUrl: string): grpc.Client {
  const address = new URL(serviceUrl).host;
  let client = clients.get(address);
  if (client === undefined) clients.set(address, (client = new grpc.Client(address, grpc.credentials.createInsecure())));
  return client;
}

/** Makes one unary call; resolves with the decoded response or rejects with the gRPC error. */
function unary<I extends DescMessage, O extends DescMessage>(
  client: grpc.Client,
  path: string,
  input: I,
  output: O,
  request: MessageShape<I>,
  metadata: grpc.Metadata,
): Promise<MessageShape<O>> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      path,
      (message: MessageShape<I>) => Buffer.from(toBinary(input, message)),
      (bytes: Buffer) => fromBinary(output, bytes),
      request,
      metadata,
      { deadline: Date.now() + 10_000 },
      (error, response) => (error ? reject(error) : resolve(response!)),
    );
  });
}

function aliceAsPrincipal(): Principal {
  return { kind: "user", subject: alice.userId, orgId: alice.orgId, memberships: [{ orgId: alice.orgId, roles: ["member"] }], isSystemAdmin: false };
}

function metadataWith(principalHeader?: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (principalHeader !== undefined) metadata.set(PRINCIPAL_HEADER, principalHeader);
  return metadata;
}

function getDataset(metadata: grpc.Metadata) {
  const request = create(GetDatasetRequestSchema, { datasetId });
  return unary(clientOf(t.platform.services.data.url), GET_DATASET, GetDatasetRequestSchema, GetDatasetResponseSchema, request, metadata);
}

test("a call without the x-hangar-principal metadata is refused with UNAUTHENTICATED", async () => {
  await expect(getDataset(metadataWith())).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED, details: "missing caller identity" });
});

test("a principal signed with another key is refused with UNAUTHENTICATED", async () => {
  const forged = signPrincipal(aliceAsPrincipal(), "not-the-internal-key");
  await expect(getDataset(metadataWith(forged))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED, details: "invalid caller identity" });
});

test("a validly signed principal whose body was altered is refused with UNAUTHENTICATED", async () => {
  const [, signature] = signPrincipal(aliceAsPrincipal(), t.internalAuthSecret).split(".");
  const escalated = Buffer.from(JSON.stringify({ ...aliceAsPrincipal(), isSystemAdmin: true, exp: Math.floor(Date.now() / 1000) + 60 })).toString("base64url");
  await expect(getDataset(metadataWith(`${escalated}.${signature}`))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
});

test("an expired signed principal is refused with UNAUTHENTICATED", async () => {
  const stale = signPrincipal(aliceAsPrincipal(), t.internalAuthSecret, Date.now() - 120_000);
  await expect(getDataset(metadataWith(stale))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED, details: "expired caller identity" });
});

test("with a principal signed by the internal key, GetDataset returns the dataset created through the gateway", async () => {
  const response = await getDataset(metadataWith(signPrincipal(aliceAsPrincipal(), t.internalAuthSecret)));
  expect(response.dataset).toMatchObject({ datasetId, orgId: alice.orgId, name: "over-grpc", tags: ["direct"], createdBy: alice.userId });
  const viaGateway = (await alice.client.get(`/v1/datasets/${datasetId}`)).body.data;
  expect(response.dataset!.serviceRecordVersion).toBe(BigInt(viaGateway.service_record_version));
});

test("the service still applies the principal's org: another org's caller gets NOT_FOUND", async () => {
  const bob: Principal = { kind: "user", subject: "bob@example.com", orgId: "og_other", memberships: [{ orgId: "og_other", roles: ["member"] }], isSystemAdmin: false };
  await expect(getDataset(metadataWith(signPrincipal(bob, t.internalAuthSecret)))).rejects.toMatchObject({
    code: grpc.status.NOT_FOUND,
    details: `dataset '${datasetId}' not found`,
  });
});

test("the data service's operations for the platform's services (no HTTP route) refuse a user's principal, however signed", async () => {
  const asAlice = metadataWith(signPrincipal(aliceAsPrincipal(), t.internalAuthSecret));
  const details = "only the platform services call this operation";
  const data = clientOf(t.platform.services.data.url);
  const mark = create(MarkFilesIngestableRequestSchema, { files: [{ fileId: "fl_x", version: 1n }] });
  await expect(unary(data, "/hangar.data.v1.DataService/MarkFilesIngestable", MarkFilesIngestableRequestSchema, MarkFilesIngestableResponseSchema, mark, asAlice)).rejects.toMatchObject({
    code: grpc.status.UNAUTHENTICATED,
    details,
  });
  const rules = create(SetIngestionPathRulesRequestSchema, { rules: [{ includePatterns: ["**"] }], asOfMs: BigInt(Date.now()) });
  await expect(unary(data, "/hangar.data.v1.DataService/SetIngestionPathRules", SetIngestionPathRulesRequestSchema, SetIngestionPathRulesResponseSchema, rules, asAlice)).rejects.toMatchObject({
    code: grpc.status.UNAUTHENTICATED,
    details,
  });
  const count = create(CountCompleteSessionsRequestSchema, { fileIds: ["fl_x"] });
  await expect(unary(data, "/hangar.data.v1.DataService/CountCompleteSessions", CountCompleteSessionsRequestSchema, CountCompleteSessionsResponseSchema, count, asAlice)).rejects.toMatchObject({
    code: grpc.status.UNAUTHENTICATED,
    details,
  });
});

test("the admin service answers a plain grpc-js client too", async () => {
  const request = create(GetCurrentUserRequestSchema, {});
  const metadata = metadataWith(signPrincipal(aliceAsPrincipal(), t.internalAuthSecret));
  const response = await unary(clientOf(t.platform.services.admin.url), GET_CURRENT_USER, GetCurrentUserRequestSchema, GetCurrentUserResponseSchema, request, metadata);
  expect(response.user).toMatchObject({ userId: alice.userId, isSystemAdmin: false });
});
