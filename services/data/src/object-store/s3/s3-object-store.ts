import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import {
  CreateBucketCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type BucketLocationConstraint,
} from "@aws-sdk/client-s3";
import { AssumeRoleCommand, STSClient } from "@aws-sdk/client-sts";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { failedPrecondition, invalidArgument, notFound } from "@hangar/shared";
import type { AccessMode, ObjectHead, ObjectStore, ScopedCredentials } from "../object-store";
import { validateS3ObjectStoreOptions, type S3ObjectStoreOptions } from "./s3-object-store-options";
import { arnPartition, checkScopePrefix, createSessionPolicy } from "./session-policy";

/** S3 accepts at most this many keys in one DeleteObjects request. */
const DELETE_BATCH = 1000;
/** STS refuses sessions shorter than 15 minutes. */
const MIN_SESSION_SECONDS = 900;

/**
 * The object store on any S3-compatible service, through the AWS SDK v3. Scoped credentials come
 * from STS AssumeRole on `roleArn` with a session policy limited to the prefix. Validates the
 * options and, with `createBucket`, creates the bucket when it is missing.
 */
export async function createS3ObjectStore(options: S3ObjectStoreOptions): Promise<ObjectStore> {
  validateS3ObjectStoreOptions(options);
  const { bucket, region, endpoint, roleArn } = options;
  const credentials = options.accessKeyId
    ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey!, sessionToken: options.sessionToken }
    : undefined;
  const s3 = new S3Client({
    region,
    endpoint,
    forcePathStyle: endpoint !== undefined,
    credentials,
    // Checksums only where S3 requires them: presigned PUTs must not carry a signed checksum of an
    // empty body, and older MinIO and Ceph releases reject the newer checksum headers.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const stsEndpoint = options.stsEndpoint ?? endpoint;
  const sts = roleArn === undefined ? undefined : new STSClient({ region, endpoint: stsEndpoint, credentials });
  const close = async () => {
    s3.destroy();
    sts?.destroy();
  };
  if (options.createBucket) {
    try {
      await ensureBucket(s3, bucket, region);
    } catch (err) {
      await close();
      throw err;
    }
  }

  return {
    location: { bucket, region, endpoint },
    async issueCredentials({ prefix, mode, ttlSeconds }) {
      const problem = checkScopePrefix(prefix);
      if (problem) throw invalidArgument("prefix", problem);
      if (!sts || !roleArn) {
        throw failedPrecondition("scoped credentials are not available: the S3 object store has no role to assume (set its roleArn)");
      }
      return assumeScopedRole(sts, { roleArn, bucket, region, prefix, mode, ttlSeconds });
    },
    presignPut: (key, { expiresInSeconds }) =>
      getSignedUrl(s3, new PutObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: expiresInSeconds }),
    presignGet: (key, { expiresInSeconds, contentDisposition, contentType }) =>
      getSignedUrl(
        s3,
        new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentDisposition: contentDisposition, ResponseContentType: contentType }),
        { expiresIn: expiresInSeconds },
      ),
    async head(key) {
      try {
        const out = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { size: out.ContentLength ?? 0, etag: unquote(out.ETag ?? "") } satisfies ObjectHead;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async putObject(key, body, contentType) {
      if (Buffer.isBuffer(body)) {
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentLength: body.length, ContentType: contentType }));
      } else {
        // unknown length: lib-storage sends one PUT for small bodies, a multipart upload otherwise
        await new Upload({ client: s3, params: { Bucket: bucket, Key: key, Body: body, ContentType: contentType } }).done();
      }
    },
    async getObject(key) {
      try {
        const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        if (!(out.Body instanceof Readable)) throw new Error(`S3 GetObject of '${key}' returned no stream`);
        return out.Body;
      } catch (err) {
        if (isNotFound(err)) throw notFound("object", key);
        throw err;
      }
    },
    async deleteObjects(keys) {
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        const out = await s3.send(
          new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
        );
        const failed = out.Errors ?? [];
        if (failed.length > 0) {
          const first = failed[0]!;
          throw new Error(`S3 could not delete ${failed.length} objects; first '${first.Key}': ${first.Code} ${first.Message}`);
        }
      }
    },
    close,
  };
}

interface RoleScope {
  roleArn: string;
  bucket: string;
  region: string;
  prefix: string;
  mode: AccessMode;
  ttlSeconds: number;
}

/** Assumes the role with a session policy confining the session to `prefix`. */
async function assumeScopedRole(sts: STSClient, scope: RoleScope): Promise<ScopedCredentials> {
  const policy = createSessionPolicy(scope.bucket, scope.prefix, scope.mode, arnPartition(scope.region));
  const out = await sts.send(
    new AssumeRoleCommand({
      RoleArn: scope.roleArn,
      RoleSessionName: `hangar-${randomBytes(8).toString("hex")}`,
      DurationSeconds: Math.max(MIN_SESSION_SECONDS, Math.ceil(scope.ttlSeconds)),
      Policy: JSON.stringify(policy),
    }),
  );
  const c = out.Credentials;
  if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken || !c.Expiration) {
    throw new Error(`STS AssumeRole on '${scope.roleArn}' returned incomplete credentials`);
  }
  return {
    accessKeyId: c.AccessKeyId,
    secretAccessKey: c.SecretAccessKey,
    sessionToken: c.SessionToken,
    region: scope.region,
    bucket: scope.bucket,
    requiredPrefix: scope.prefix,
    expiration: c.Expiration,
  };
}

/** Creates `bucket` unless it exists; a concurrent creation by the platform itself is fine. */
async function ensureBucket(s3: S3Client, bucket: string, region: string): Promise<void> {
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    return;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  // us-east-1 is the one region that refuses an explicit location constraint
  const configuration = region === "us-east-1" ? undefined : { LocationConstraint: region as BucketLocationConstraint };
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: configuration }));
  } catch (err) {
    if (!(err instanceof S3ServiceException && err.name === "BucketAlreadyOwnedByYou")) throw err;
  }
}

/** HEAD requests have no error body, so a missing object or bucket shows only as status 404. */
function isNotFound(err: unknown): boolean {
  if (!(err instanceof S3ServiceException)) return false;
  return err.name === "NotFound" || err.name === "NoSuchKey" || err.name === "NoSuchBucket" || err.$metadata.httpStatusCode === 404;
}

/** S3 sends ETags quoted (`"abc"`); the store reports the bare value. */
function unquote(etag: string): string {
  return etag.replace(/^"(.*)"$/, "$1");
}
