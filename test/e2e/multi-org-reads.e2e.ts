import { PutObjectCommand } from "@aws-sdk/client-s3";
import { createTenant, expectError, keyOfUri, s3With, startWithTenants, uploadFiles, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { ok } from "./invocation-fixtures";
import { sdkWorkspace, type SdkWorkspace } from "./sdk-fixtures";

// A caller in several orgs who names none (issue 11): a call that addresses a record by its id
// finds it in whichever of the caller's orgs holds it, as the client SDK expects (it sends no org
// header when it fetches a dataset by id or an upload's credentials, progress and completion). A
// record of an org the caller is not in stays a 404, and a named org still limits the lookup.

let t: TestPlatform;
let carol: TestTenant;
let bob: TestTenant;
let secondOrg: string;
let ws: SdkWorkspace;

beforeAll(async () => {
  [t, carol, bob] = await startWithTenants(["multi-reads", "multi-reads-other"]);
  // Creating an org makes its creator the owner: carol now belongs to two orgs.
  secondOrg = ok(await carol.client.post("/v1/orgs", { name: "multi-reads-second" })).org_id;
  ws = await sdkWorkspace(t);
});
afterAll(async () => {
  await t?.close();
  await ws?.close();
});

const inOrg = (orgId: string) => ({ "X-Service-Org-Id": orgId });

async function datasetIn(client: TestTenant["client"], orgId: string, name: string): Promise<{ dataset_id: string; org_id: string }> {
  return ok(await client.post("/v1/datasets", { name }, inOrg(orgId)));
}

describe("by-id reads of a caller in two orgs, without an org header", () => {
  test("a dataset of either org is found by id, as the record it is", async () => {
    const first = await datasetIn(carol.client, carol.orgId, "in-first");
    const second = await datasetIn(carol.client, secondOrg, "in-second");
    expect(ok(await carol.client.get(`/v1/datasets/${first.dataset_id}`))).toEqual(first);
    expect(ok(await carol.client.get(`/v1/datasets/${second.dataset_id}`))).toEqual(second);
  });

  test("another org's dataset, and one that does not exist, are 404s", async () => {
    const foreign = await datasetIn(bob.client, bob.orgId, "bobs");
    expectError(await carol.client.get(`/v1/datasets/${foreign.dataset_id}`), 404, `dataset '${foreign.dataset_id}' not found`);
    expectError(await carol.client.get("/v1/datasets/ds_missing"), 404, "dataset 'ds_missing' not found");
  });

  test("a named org still limits the lookup: the other org's dataset is a 404 there", async () => {
    const second = await datasetIn(carol.client, secondOrg, "named");
    expectError(await carol.client.get(`/v1/datasets/${second.dataset_id}`, inOrg(carol.orgId)), 404, `dataset '${second.dataset_id}' not found`);
  });

  test("an upload begun in the second org takes credentials, progress and completion without an org header; its file reads by id", async () => {
    const dataset = await datasetIn(carol.client, secondOrg, "upload-target");
    const begun = ok(
      await carol.client.post("/v1/files/upload", { association: { association_id: dataset.dataset_id, association_type: "dataset" }, origination: "test", resource_manifest: { "a.txt": 1 } }, inOrg(secondOrg)),
    );
    const creds = ok(await carol.client.get(`/v1/files/upload/${begun.transaction_id}/credentials`));
    expect(creds).toHaveLength(1);
    expect(creds[0].required_prefix).toBe(`${secondOrg}/${dataset.dataset_id}/${begun.transaction_id}/`);
    const uri: string = begun.upload_mappings["a.txt"];
    const s3 = s3With(creds[0]);
    await s3.send(new PutObjectCommand({ Bucket: creds[0].bucket, Key: keyOfUri(uri), Body: "a" }));
    s3.destroy();
    ok(await carol.client.put(`/v1/files/upload/${begun.transaction_id}/progress`, { manifest_items: [uri] }));
    ok(await carol.client.put(`/v1/files/upload/${begun.transaction_id}/complete`));
    const { file_id: fileId } = ok(await carol.client.get(`/v1/files/record/path/a.txt/association/${dataset.dataset_id}`, inOrg(secondOrg)));
    expect(ok(await carol.client.get(`/v1/files/record/${fileId}`))).toEqual(expect.objectContaining({ file_id: fileId, org_id: secondOrg, status: "available" }));
  });

  test("another org's upload transaction and file are 404s", async () => {
    const dataset = await datasetIn(bob.client, bob.orgId, "bobs-upload");
    const { transactionId } = await uploadFiles(bob.client, dataset.dataset_id, { "b.txt": "b" }, { complete: false });
    expectError(await carol.client.get(`/v1/files/upload/${transactionId}/credentials`), 404, `upload transaction '${transactionId}' not found`);
    expectError(await carol.client.put(`/v1/files/upload/${transactionId}/complete`), 404, `upload transaction '${transactionId}' not found`);
    ok(await bob.client.put(`/v1/files/upload/${transactionId}/complete`));
    const file = ok(await bob.client.get(`/v1/files/record/path/b.txt/association/${dataset.dataset_id}`));
    expectError(await carol.client.get(`/v1/files/record/${file.file_id}`), 404, `file '${file.file_id}' not found`);
    expectError(await carol.client.get(`/v1/datasets/id/${dataset.dataset_id}/credentials`), 404, `dataset '${dataset.dataset_id}' not found`);
  });
});

const SDK_UPLOAD = `
import json, pathlib, sys
from roboto import Dataset, RobotoClient

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()
created = Dataset.create(name="two-orgs", caller_org_id=args["org_id"], roboto_client=client)
dataset = Dataset.from_id(created.dataset_id, roboto_client=client)
source = pathlib.Path(args["source"])
paths = sorted(p for p in source.rglob("*") if p.is_file())
dataset.upload_files(paths, file_destination_paths={p: p.relative_to(source).as_posix() for p in paths})
print(json.dumps({
    "dataset": [dataset.dataset_id, dataset.org_id],
    "files": sorted(f.relative_path for f in dataset.list_files()),
}))
`;

test("the SDK uploads into a dataset of its second org for a user in two orgs", async () => {
  const dave = await createTenant(t, "multi-reads-sdk");
  const daveSecond = ok(await dave.client.post("/v1/orgs", { name: "multi-reads-sdk-second" })).org_id;
  const source = await ws.directoryWith("two-orgs", { "logs/run.csv": "a,b\n1,2\n", "notes.txt": "hello" });

  const result = await ws.sdk("two-orgs", SDK_UPLOAD, { org_id: daveSecond, source }, dave.token);

  const [datasetId, orgId] = result.dataset;
  expect(orgId).toBe(daveSecond);
  expect(result.files).toEqual(["logs/run.csv", "notes.txt"]);
  const file = ok(await dave.client.get(`/v1/files/record/path/notes.txt/association/${datasetId}`, inOrg(daveSecond)));
  expect(file).toEqual(expect.objectContaining({ org_id: daveSecond, status: "available", size: 5 }));
});
