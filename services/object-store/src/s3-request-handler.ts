import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { authenticateRequest } from "./authenticate-request";
import { checkAccess } from "./check-access";
import type { CredentialStore } from "./credential-store";
import type { DiskStore } from "./disk-store";
import type { MultipartStore } from "./multipart-store";
import { receiveBody } from "./receive-body";
import { parseRequestTarget, type RequestTarget } from "./request-target";
import { routeOperation } from "./route-operation";
import type { S3Context } from "./s3-operation";
import { sendError, toS3Error } from "./s3-response";
import { isStsRequest, serveAssumeRole } from "./sts-assume-role";

/** What {@link createS3RequestHandler} serves. */
export interface S3RequestHandlerOptions {
  bucket: string;
  region: string;
  credentials: CredentialStore;
  disk: DiskStore;
  multipart: MultipartStore;
  now: () => Date;
  /** Told of unexpected failures (answered as InternalError without detail). */
  onInternalError: (error: unknown, request: { method: string; path: string }) => void;
}

/** Serves one request; `awaitingContinue` when the client sent `Expect: 100-continue` and waits before its body. */
export type S3RequestHandler = (req: IncomingMessage, res: ServerResponse, awaitingContinue: boolean) => Promise<void>;

/**
 * The S3 REST endpoint, path-style: authenticate (SigV4), route, check the credential's scope, then run the
 * operation; STS AssumeRole calls (`POST /` with a form) go to serveAssumeRole. Nothing is read from a body, let alone written, before the first three pass; every failure
 * is answered as an S3 XML error.
 */
export function createS3RequestHandler(options: S3RequestHandlerOptions): S3RequestHandler {
  return async (req, res, awaitingContinue) => {
    const requestId = randomBytes(8).toString("hex").toUpperCase();
    res.setHeader("x-amz-request-id", requestId);
    res.setHeader("server", "hangar");
    let target: RequestTarget | undefined;
    let continued = false;
    const sendContinue = (): void => {
      if (awaitingContinue && !continued) res.writeContinue();
      continued = true;
    };
    try {
      target = parseRequestTarget(req.url ?? "/");
      if (isStsRequest(req, target)) return await serveAssumeRole(req, res, target, options);
      const auth = await authenticateRequest(req, target, options);
      const operation = routeOperation(req.method ?? "GET", target, req.headers, options.bucket);
      checkAccess(auth.credential, operation.access);
      const receive = (maxSize: number) => {
        sendContinue();
        return receiveBody(req, auth, { file: options.disk.temporaryFile(), maxSize });
      };
      const context: S3Context = {
        req,
        res,
        target,
        auth,
        bucket: options.bucket,
        region: options.region,
        key: target.key ?? "",
        disk: options.disk,
        multipart: options.multipart,
        now: options.now,
        receiveBody: receive,
        readText: async (maxSize) => {
          const body = await receive(maxSize);
          try {
            return await readFile(body.file, "utf8");
          } finally {
            await rm(body.file, { force: true });
          }
        },
      };
      await operation.run(context);
    } catch (caught) {
      if (res.headersSent) {
        // The answer is under way (a download); all that can be said now is to cut it short.
        res.destroy();
        return;
      }
      const { error, internal } = toS3Error(caught);
      if (internal) options.onInternalError(caught, { method: req.method ?? "", path: target?.rawPath ?? req.url ?? "" });
      await sendError(req, res, error, {
        requestId,
        resource: target?.rawPath ?? "/",
        awaitingContinue: awaitingContinue && !continued,
      });
    }
  };
}
