import type { AccessMode } from "./scoped-credentials";
import { S3Error } from "./s3-error";

/** What a session policy grants, in the terms the store enforces: one key prefix, read or read-write. */
export interface PolicyScope {
  prefix: string;
  mode: AccessMode;
}

/** Object actions that make a session ReadWrite; a session with only GetObject is ReadOnly. */
const WRITE_ACTIONS = new Set(["s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts", "s3:DeleteObject", "s3:*"]);
const READ_ACTIONS = new Set(["s3:GetObject", "s3:*"]);
const OBJECT_RESOURCE = /^arn:aws[a-z-]*:s3:::([^/]+)\/(.+)\*$/;
const BUCKET_RESOURCE = /^arn:aws[a-z-]*:s3:::([^/*]+)$/;

/**
 * Reads an STS session policy as the store can enforce it: Allow statements on the objects under one
 * prefix of `bucket` (`arn:aws:s3:::<bucket>/<prefix>*`), optionally with listing the bucket. The
 * session is ReadWrite when they allow writing objects, else ReadOnly. Any other policy (Deny, other
 * resources, several prefixes, wildcards inside the prefix) is refused as MalformedPolicyDocument rather
 * than granted more or less than it says: the store has no general IAM evaluator.
 */
export function parseSessionPolicy(policy: string, bucket: string): PolicyScope {
  let statements: unknown[];
  try {
    const document = JSON.parse(policy) as { Statement?: unknown };
    statements = Array.isArray(document.Statement) ? document.Statement : [document.Statement];
  } catch {
    throw malformed("the policy is not JSON");
  }
  const prefixes = new Set<string>();
  let writes = false;
  let reads = false;
  for (const statement of statements) {
    const { Effect, Action, Resource } = (statement ?? {}) as { Effect?: unknown; Action?: unknown; Resource?: unknown };
    if (Effect !== "Allow") throw malformed("only Allow statements are supported");
    const actions = list(Action);
    for (const resource of list(Resource)) {
      const object = OBJECT_RESOURCE.exec(resource);
      if (object !== null && object[1] === bucket && !/[*?$]/.test(object[2]!)) {
        prefixes.add(object[2]!);
        writes ||= actions.some((action) => WRITE_ACTIONS.has(action));
        reads ||= actions.some((action) => READ_ACTIONS.has(action));
      } else if (BUCKET_RESOURCE.exec(resource)?.[1] !== bucket) {
        throw malformed(`resource '${resource.slice(0, 64)}' is neither bucket '${bucket}' nor a prefix of its objects`);
      }
    }
  }
  if (prefixes.size !== 1 || !reads) throw malformed("the policy must allow reading the objects under exactly one prefix");
  return { prefix: [...prefixes][0]!, mode: writes ? "ReadWrite" : "ReadOnly" };
}

function list(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  if (!values.every((item): item is string => typeof item === "string")) throw malformed("Action and Resource must be strings");
  return values;
}

function malformed(why: string): S3Error {
  return new S3Error("MalformedPolicyDocument", `The session policy cannot be enforced: ${why}.`);
}
