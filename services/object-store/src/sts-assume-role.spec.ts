import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts";
import { listFiles, startTestStore, type TestStore } from "./embedded-store.fixture";

// STS AssumeRole on the S3 endpoint, called by the AWS SDK's own STS client as the distributed data
// service calls it: only the root credential may, the session policy becomes the credential's scope,
// and a policy the store cannot enforce as written is refused.

const Bucket = "hangar";
const ROOT = { accessKeyId: "HANGARSPECROOTKEY01", secretAccessKey: "spec-only-root-secret-0123456789" };
const ROLE = "arn:aws:iam::000000000000:role/uploads";
let test_: TestStore;
const clients: STSClient[] = [];

beforeAll(async () => {
  test_ = await startTestStore({ rootCredential: ROOT });
});
afterAll(async () => {
  clients.forEach((client) => client.destroy());
  await test_.stop();
});

function sts(credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } = ROOT): STSClient {
  const client = new STSClient({ endpoint: test_.store.url, region: "us-east-1", maxAttempts: 1, credentials });
  clients.push(client);
  return client;
}

/** The session policy the data service sends (services/data/src/object-store/s3/session-policy.ts). */
function policy(prefix: string, actions: string[]): string {
  return JSON.stringify({
    Version: "2012-10-17",
    Statement: [
      { Sid: "ObjectsUnderPrefix", Effect: "Allow", Action: actions, Resource: `arn:aws:s3:::${Bucket}/${prefix}*` },
      { Sid: "ListUnderPrefix", Effect: "Allow", Action: ["s3:ListBucket"], Resource: `arn:aws:s3:::${Bucket}`, Condition: { StringLike: { "s3:prefix": [`${prefix}*`] } } },
    ],
  });
}

const assume = (Policy: string | undefined, client = sts()) =>
  client.send(new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: "spec", DurationSeconds: 900, Policy }));

test("a read-write session policy yields credentials that write under the prefix and nowhere else", async () => {
  const { Credentials } = await assume(policy("datasets/d1/", ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"]));
  expect(Credentials?.AccessKeyId).toMatch(/^HGRE/);
  expect(Credentials!.Expiration!.getTime() - Date.now()).toBeGreaterThan(800_000);
  const s3 = test_.client({ accessKeyId: Credentials!.AccessKeyId!, secretAccessKey: Credentials!.SecretAccessKey!, sessionToken: Credentials!.SessionToken! });
  await s3.send(new PutObjectCommand({ Bucket, Key: "datasets/d1/a.txt", Body: "a" }));
  await expect(s3.send(new PutObjectCommand({ Bucket, Key: "datasets/d2/a.txt", Body: "a" }))).rejects.toMatchObject({ name: "AccessDenied" });
});

test("a read-only session policy yields credentials that read but do not write", async () => {
  const { Credentials } = await assume(policy("datasets/d1/", ["s3:GetObject"]));
  const s3 = test_.client({ accessKeyId: Credentials!.AccessKeyId!, secretAccessKey: Credentials!.SecretAccessKey!, sessionToken: Credentials!.SessionToken! });
  expect(await (await s3.send(new GetObjectCommand({ Bucket, Key: "datasets/d1/a.txt" }))).Body!.transformToString()).toBe("a");
  await expect(s3.send(new PutObjectCommand({ Bucket, Key: "datasets/d1/b.txt", Body: "b" }))).rejects.toMatchObject({ name: "AccessDenied" });
});

test("policies the store cannot enforce as written are refused, and nothing is issued", async () => {
  const before = await listFiles(test_.dataDir);
  const refused = [
    undefined,
    "not json",
    policy("datasets/*/", ["s3:GetObject"]),
    JSON.stringify({ Statement: [{ Effect: "Deny", Action: "s3:*", Resource: "arn:aws:s3:::hangar/*" }] }),
    JSON.stringify({ Statement: [{ Effect: "Allow", Action: "s3:GetObject", Resource: "arn:aws:s3:::other-bucket/a/*" }] }),
    JSON.stringify({ Statement: [{ Effect: "Allow", Action: "s3:GetObject", Resource: ["arn:aws:s3:::hangar/a/*", "arn:aws:s3:::hangar/b/*"] }] }),
  ];
  for (const document of refused) {
    // The SDK names STS's MalformedPolicyDocument code by its modelled exception.
    const name = document === undefined ? "MissingParameter" : "MalformedPolicyDocumentException";
    await expect(assume(document)).rejects.toMatchObject({ name, $metadata: { httpStatusCode: 400 } });
  }
  expect(await listFiles(test_.dataDir)).toEqual(before);
});

test("only the root credential may assume a role, and only with a valid signature", async () => {
  const { Credentials } = await assume(policy("datasets/d1/", ["s3:GetObject"]));
  const session = sts({ accessKeyId: Credentials!.AccessKeyId!, secretAccessKey: Credentials!.SecretAccessKey!, sessionToken: Credentials!.SessionToken! });
  await expect(assume(policy("datasets/", ["s3:GetObject"]), session)).rejects.toMatchObject({ name: "AccessDenied", $metadata: { httpStatusCode: 403 } });
  const forged = sts({ accessKeyId: ROOT.accessKeyId, secretAccessKey: "not-the-root-secret-0123456789" });
  await expect(assume(policy("datasets/", ["s3:GetObject"]), forged)).rejects.toMatchObject({ name: "SignatureDoesNotMatch" });
});
