import type { AccessMode } from "../object-store";

/** An IAM policy document, as STS takes it in `Policy`. */
export interface PolicyDocument {
  Version: "2012-10-17";
  Statement: PolicyStatement[];
}

export interface PolicyStatement {
  Sid: string;
  Effect: "Allow";
  Action: string[];
  Resource: string;
  Condition?: Record<string, Record<string, string[]>>;
}

/** Object actions by mode: ReadWrite adds what single and multipart uploads need. */
const OBJECT_ACTIONS: Record<AccessMode, string[]> = {
  ReadOnly: ["s3:GetObject"],
  ReadWrite: ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"],
};

/**
 * The inline session policy for credentials scoped to `prefix` of `bucket`: the objects below the
 * prefix (read, or read and write) and listing the bucket only under it. STS intersects it with the
 * role's own policy, so the credentials never reach beyond the prefix whatever the role allows.
 * `partition` is the ARN partition (`aws`, `aws-cn`, `aws-us-gov`).
 */
export function createSessionPolicy(bucket: string, prefix: string, mode: AccessMode, partition = "aws"): PolicyDocument {
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "ObjectsUnderPrefix",
        Effect: "Allow",
        Action: OBJECT_ACTIONS[mode],
        Resource: `arn:${partition}:s3:::${bucket}/${prefix}*`,
      },
      {
        Sid: "ListUnderPrefix",
        Effect: "Allow",
        Action: ["s3:ListBucket"],
        Resource: `arn:${partition}:s3:::${bucket}`,
        Condition: { StringLike: { "s3:prefix": [`${prefix}*`] } },
      },
    ],
  };
}

/**
 * Why `prefix` cannot scope credentials, or undefined when it can: it must be non-empty (an empty
 * prefix would grant the whole bucket), relative, and free of the policy language's wildcards and
 * variables. Note that `a/b` also covers `a/bc`: end prefixes with `/` to scope a folder.
 */
export function checkScopePrefix(prefix: string): string | undefined {
  if (prefix === "") return "must not be empty";
  if (prefix.startsWith("/")) return "must not start with '/'";
  if (/[*?$]/.test(prefix)) return "must not contain '*', '?' or '$'";
  return undefined;
}

/** The ARN partition of an AWS region: `aws-cn` for China, `aws-us-gov` for GovCloud, else `aws`. */
export function arnPartition(region: string): string {
  if (region.startsWith("cn-")) return "aws-cn";
  if (region.startsWith("us-gov-")) return "aws-us-gov";
  return "aws";
}
