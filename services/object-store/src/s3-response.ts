import type { IncomingMessage, ServerResponse } from "node:http";
import { S3Error } from "./s3-error";
import { xmlDocument, type XmlElement } from "./xml";

/** Sends an XML document. */
export function sendXml(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, "content-type": "application/xml", "content-length": String(Buffer.byteLength(body)) });
  res.end(body);
}

/** Sends a response without a body. */
export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string | number> = {}): void {
  res.writeHead(status, { "content-length": "0", ...headers });
  res.end();
}

/** The bytes of a request body that are still read (and dropped) after a refusal, so the client hears the answer. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * Answers an S3 error as S3 does: the status of its code, and unless the request is a HEAD an XML body
 * `<Error><Code>…</Code><Message>…</Message>…</Error>`. The rest of an unread request body is drained
 * first (clients that are still sending would otherwise see a reset instead of the error); a client
 * that still waits for `100 Continue`, or a body too long to drain, gets the answer and a closed connection.
 */
export async function sendError(
  req: IncomingMessage,
  res: ServerResponse,
  error: S3Error,
  context: { requestId: string; resource: string; awaitingContinue: boolean },
): Promise<void> {
  const close = context.awaitingContinue || !(await drain(req));
  if (res.headersSent || res.destroyed) return;
  const body =
    req.method === "HEAD"
      ? ""
      : xmlDocument(
          "Error",
          [
            ["Code", error.code],
            ["Message", error.message],
            ...Object.entries(error.details).map(([name, value]): XmlElement => [name, value]),
            ["Resource", context.resource],
            ["RequestId", context.requestId],
          ],
          { namespace: false },
        );
  res.writeHead(error.status, {
    ...error.headers,
    "x-amz-request-id": context.requestId,
    "content-type": "application/xml",
    "content-length": String(Buffer.byteLength(body)),
    ...(close && { connection: "close" }),
  });
  res.end(body);
}

/** Reads what is left of a request body; false when it is longer than worth reading. */
async function drain(req: IncomingMessage): Promise<boolean> {
  if (req.complete || req.destroyed) return true;
  return new Promise((resolve) => {
    let drained = 0;
    const onData = (chunk: Buffer): void => {
      drained += chunk.length;
      if (drained > MAX_DRAIN_BYTES) finish(false);
    };
    const finish = (complete: boolean): void => {
      req.off("data", onData).off("end", onEnd).off("close", onClose);
      if (!complete) req.pause();
      resolve(complete);
    };
    const onEnd = (): void => finish(true);
    const onClose = (): void => finish(req.complete);
    req.on("data", onData).on("end", onEnd).on("close", onClose);
    req.resume();
  });
}

/** Wraps whatever escaped an operation as an S3 error; unknown errors become InternalError, their detail kept private. */
export function toS3Error(error: unknown): { error: S3Error; internal: boolean } {
  if (error instanceof S3Error) return { error, internal: false };
  return { error: new S3Error("InternalError", "We encountered an internal error. Please try again."), internal: true };
}
