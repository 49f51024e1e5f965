import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { authenticateRequest, type AuthenticationContext } from "./authenticate-request";
import type { CredentialStore } from "./credential-store";
import type { RequestTarget } from "./request-target";
import { S3Error } from "./s3-error";
import { sendXml } from "./s3-response";
import { parseSessionPolicy } from "./session-policy-scope";
import { xmlDocument } from "./xml";

/** STS's limits on a session's `DurationSeconds`, and its default. */
const MIN_DURATION_SECONDS = 900;
const MAX_DURATION_SECONDS = 43_200;
const DEFAULT_DURATION_SECONDS = 3_600;
/** A form larger than this is no AssumeRole call (a session policy is at most 2,048 characters). */
const MAX_FORM_BYTES = 64 * 1024;
const STS_NAMESPACE = "https://sts.amazonaws.com/doc/2011-06-15/";

/** What the STS endpoint needs: the credentials it authenticates against and issues from, and the bucket. */
export interface StsContext extends AuthenticationContext {
  credentials: CredentialStore;
  bucket: string;
  /** Told of unexpected failures (answered as InternalError without detail). */
  onInternalError: (error: unknown, request: { method: string; path: string }) => void;
}

/** Whether a request is an STS query-protocol call (`POST /` with a form body), which S3 has no use for. */
export function isStsRequest(req: IncomingMessage, target: RequestTarget): boolean {
  return req.method === "POST" && target.rawPath === "/" && (req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded");
}

/**
 * Serves STS `AssumeRole` on the S3 endpoint, as MinIO and Ceph do, so that a program holding the
 * store's root credential mints prefix-scoped session credentials with any STS client (the AWS SDK's
 * included). The call must be SigV4-signed for service `sts` by the root credential; `Policy` is
 * required and must be one the store can enforce (see parseSessionPolicy). `RoleArn` is only checked
 * to be an ARN: the store has one principal and no roles. Other actions are InvalidAction.
 */
export async function serveAssumeRole(req: IncomingMessage, res: ServerResponse, target: RequestTarget, context: StsContext): Promise<void> {
  const requestId = randomBytes(8).toString("hex");
  try {
    const body = await readForm(req);
    const payloadHash = createHash("sha256").update(body).digest("hex");
    const auth = await authenticateRequest(req, target, context, { service: "sts", payloadHash });
    if (auth.credential !== context.credentials.internal) throw new S3Error("AccessDenied", "Only the store's root credential may assume a role.");
    const form = new URLSearchParams(body.toString("utf8"));
    const action = form.get("Action");
    if (action !== "AssumeRole") throw new S3Error("InvalidAction", `Action '${(action ?? "").slice(0, 64)}' is not supported; only AssumeRole is.`);
    const issued = await assumeRole(form, context);
    sendXml(res, 200, xmlDocument("AssumeRoleResponse", [
      ["AssumeRoleResult", [
        ["Credentials", [["AccessKeyId", issued.accessKeyId], ["SecretAccessKey", issued.secretAccessKey], ["SessionToken", issued.sessionToken ?? ""], ["Expiration", issued.expiration!.toISOString()]]],
        ["AssumedRoleUser", [["AssumedRoleId", `${issued.accessKeyId}:${form.get("RoleSessionName")}`], ["Arn", form.get("RoleArn")!]]],
      ]],
      ["ResponseMetadata", [["RequestId", requestId]]],
    ], { namespace: STS_NAMESPACE }));
  } catch (caught) {
    const error = caught instanceof S3Error ? caught : new S3Error("InternalError", "We encountered an internal error. Please try again.");
    sendXml(res, error.status, xmlDocument("ErrorResponse", [
      ["Error", [["Type", error.status >= 500 ? "Receiver" : "Sender"], ["Code", error.code], ["Message", error.message]]],
      ["RequestId", requestId],
    ], { namespace: STS_NAMESPACE }));
    if (!(caught instanceof S3Error)) context.onInternalError(caught, { method: "POST", path: "/" });
  }
}

async function assumeRole(form: URLSearchParams, context: StsContext) {
  const roleArn = form.get("RoleArn");
  const sessionName = form.get("RoleSessionName");
  const policy = form.get("Policy");
  if (!roleArn || !sessionName || !policy) throw new S3Error("MissingParameter", "AssumeRole needs RoleArn, RoleSessionName and a session Policy.");
  if (!roleArn.startsWith("arn:")) throw new S3Error("InvalidParameterValue", "RoleArn must be an ARN.");
  const duration = Number(form.get("DurationSeconds") ?? DEFAULT_DURATION_SECONDS);
  if (!Number.isInteger(duration) || duration < MIN_DURATION_SECONDS || duration > MAX_DURATION_SECONDS) {
    throw new S3Error("InvalidParameterValue", `DurationSeconds must be an integer from ${MIN_DURATION_SECONDS} to ${MAX_DURATION_SECONDS}.`);
  }
  const { prefix, mode } = parseSessionPolicy(policy, context.bucket);
  return context.credentials.issue({ prefix, mode, ttlSeconds: duration });
}

async function readForm(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new S3Error("InvalidRequest", `An STS request body is at most ${MAX_FORM_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
