import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import type { ScopedCredentials } from "./scoped-credentials";
import { startTestStore, type TestStore } from "./embedded-store.fixture";

// boto3 is the platform's main client: it runs unmodified against the endpoint, configured only through
// AWS_ENDPOINT_URL_S3 and the issued credentials, as the SDK's users run it.
const script = String.raw`
import hashlib, json, os, re, tempfile, urllib.error, urllib.request
import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

bucket, prefix = os.environ["HANGAR_BUCKET"], os.environ["HANGAR_PREFIX"]
s3 = boto3.client("s3", region_name=os.environ["HANGAR_REGION"])
result = {}

small = b"hello from boto3"
result["put_etag"] = s3.put_object(Bucket=bucket, Key=prefix + "small.txt", Body=small)["ETag"]
got = s3.get_object(Bucket=bucket, Key=prefix + "small.txt")
result["get_body"] = got["Body"].read().decode()
result["head_length"] = s3.head_object(Bucket=bucket, Key=prefix + "small.txt")["ContentLength"]

with tempfile.TemporaryDirectory() as folder:
    source, target = os.path.join(folder, "source.bin"), os.path.join(folder, "target.bin")
    with open(source, "wb") as file:
        file.write(os.urandom(20 * 1024 * 1024 + 123))
    s3.upload_file(source, bucket, prefix + "big/source.bin")
    s3.download_file(bucket, prefix + "big/source.bin", target)
    digest = lambda path: hashlib.sha256(open(path, "rb").read()).hexdigest()
    result["big_equal"] = digest(source) == digest(target)
    result["big_etag"] = s3.head_object(Bucket=bucket, Key=prefix + "big/source.bin")["ETag"]

pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix, PaginationConfig={"PageSize": 1})
result["listed"] = [item["Key"] for page in pages for item in page.get("Contents", [])]

# boto3 presigns with the legacy signature unless configured for SigV4: both must work.
v4 = boto3.client("s3", region_name=os.environ["HANGAR_REGION"], config=Config(signature_version="s3v4"))
for name, client in (("legacy", s3), ("v4", v4)):
    url = client.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": prefix + name + ".txt"}, ExpiresIn=60)
    urllib.request.urlopen(urllib.request.Request(url, data=name.encode(), method="PUT")).read()
    url = client.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": prefix + name + ".txt"}, ExpiresIn=60)
    result["presigned_" + name] = urllib.request.urlopen(url).read().decode()
    try:
        urllib.request.urlopen(re.sub("(Signature=)[^&]{4}", r"\1AAAA", url))
        result["tampered_" + name] = 200
    except urllib.error.HTTPError as error:
        result["tampered_" + name] = error.code

try:
    s3.put_object(Bucket=bucket, Key="elsewhere/x.txt", Body=b"no")
    result["outside"] = "written"
except ClientError as error:
    result["outside"] = [error.response["Error"]["Code"], error.response["ResponseMetadata"]["HTTPStatusCode"]]

s3.delete_object(Bucket=bucket, Key=prefix + "small.txt")
try:
    s3.head_object(Bucket=bucket, Key=prefix + "small.txt")
    result["after_delete"] = "found"
except ClientError as error:
    result["after_delete"] = error.response["ResponseMetadata"]["HTTPStatusCode"]
print(json.dumps(result))
`;

let test_: TestStore;
let credentials: ScopedCredentials;

beforeAll(async () => {
  test_ = await startTestStore();
  credentials = await test_.store.issueCredentials({ prefix: "datasets/boto/", mode: "ReadWrite", ttlSeconds: 900 });
});
afterAll(() => test_.stop());

function runPython(env: Record<string, string>): Promise<string> {
  // Only what the client needs: no profile, config file or instance metadata of the machine running the tests.
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("AWS_")));
  return new Promise((resolve, reject) => {
    execFile("python3", ["-c", script], { env: { ...clean, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`boto3 script failed: ${stderr}`, { cause: error }));
      else resolve(stdout);
    });
  });
}

test("boto3, configured by AWS_ENDPOINT_URL_S3 and issued credentials, uploads (single and multipart), downloads, lists and is refused outside its prefix", async () => {
  const output = await runPython({
    AWS_ENDPOINT_URL_S3: test_.store.url,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_SESSION_TOKEN: credentials.sessionToken,
    AWS_CONFIG_FILE: "/nonexistent",
    AWS_SHARED_CREDENTIALS_FILE: "/nonexistent",
    AWS_EC2_METADATA_DISABLED: "true",
    HANGAR_BUCKET: credentials.bucket,
    HANGAR_PREFIX: credentials.requiredPrefix,
    HANGAR_REGION: credentials.region,
  });
  expect(JSON.parse(output)).toEqual({
    put_etag: `"${createHash("md5").update("hello from boto3").digest("hex")}"`,
    get_body: "hello from boto3",
    head_length: 16,
    big_equal: true,
    big_etag: expect.stringMatching(/^"[0-9a-f]{32}-3"$/),
    listed: ["datasets/boto/big/source.bin", "datasets/boto/small.txt"],
    presigned_legacy: "legacy",
    tampered_legacy: 403,
    presigned_v4: "v4",
    tampered_v4: 403,
    outside: ["AccessDenied", 403],
    after_delete: 404,
  });
}, 120_000);
