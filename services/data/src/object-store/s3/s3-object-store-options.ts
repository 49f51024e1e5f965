/** Settings of the S3 object store: any S3-compatible service (AWS S3, MinIO, Ceph). */
export interface S3ObjectStoreOptions {
  /** The platform's bucket: every object and every scoped credential lives in it. */
  bucket: string;
  region: string;
  /** A custom endpoint URL (MinIO, Ceph, moto), addressed path-style; unset means AWS's own endpoints. */
  endpoint?: string;
  /** The platform's own credentials; unset means the SDK's default chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /**
   * The role that scoped credentials are minted from with STS AssumeRole. Without it,
   * issueCredentials fails: the platform never hands out its own long-lived keys.
   */
  roleArn?: string;
  /** STS endpoint URL; defaults to `endpoint` (MinIO and Ceph serve STS there), else AWS's regional STS. */
  stsEndpoint?: string;
  /** Create the bucket at start when it does not exist (default false). */
  createBucket?: boolean;
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Checks the options once, throwing one error that lists every problem: a bucket name S3 accepts,
 * a region, http(s) endpoint URLs, the access key and secret given together, a role ARN.
 */
export function validateS3ObjectStoreOptions(options: S3ObjectStoreOptions): void {
  const problems: string[] = [];
  if (!BUCKET_NAME.test(options.bucket)) {
    problems.push(`bucket '${options.bucket}' is not a valid S3 bucket name (3 to 63 of a-z, 0-9, '.', '-')`);
  }
  if (!options.region) problems.push("region must be set");
  for (const name of ["endpoint", "stsEndpoint"] as const) {
    const url = options[name];
    if (url !== undefined && !isHttpUrl(url)) problems.push(`${name} '${url}' is not an http(s) URL`);
  }
  if (Boolean(options.accessKeyId) !== Boolean(options.secretAccessKey)) {
    problems.push("accessKeyId and secretAccessKey must be given together");
  }
  if (options.sessionToken && !options.accessKeyId) problems.push("sessionToken needs accessKeyId and secretAccessKey");
  if (options.roleArn !== undefined && !options.roleArn.startsWith("arn:")) {
    problems.push(`roleArn '${options.roleArn}' is not an ARN`);
  }
  if (problems.length > 0) throw new Error(`invalid S3 object store options:\n  ${problems.join("\n  ")}`);
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}
