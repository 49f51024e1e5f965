import type { ServerResponse } from "node:http";
import { ConnectError } from "@connectrpc/connect";
import { capMessage, httpStatusOf } from "@hangar/shared";

/** The HTTP status of an RPC error code (the one table lives in @hangar/shared, which batch replies use too). */
export { httpStatusOf };

/** Seconds a client is asked to wait before retrying a 503 (an outage of a dependency). */
const RETRY_AFTER_SECONDS = "1";

/** Written when even the error body cannot be built, so a client always gets the envelope. */
const FALLBACK_BODY = '{"error":{"error_code":500,"message":"internal error","stack_trace":""}}';

/**
 * The error envelope's JSON text, its message capped (capMessage) whatever raised it; also for
 * writers without a ServerResponse (a request Node's parser refused). `data`, when given, rides
 * beside `error` (`/readyz` puts the per-service detail of a 503 there).
 */
export function errorEnvelope(status: number, message: string, stackTrace = "", data?: unknown): string {
  const error = { error_code: status, message: capMessage(message), stack_trace: stackTrace };
  return JSON.stringify(data === undefined ? { error } : { error, data });
}

/**
 * Writes the error envelope `{error: {error_code, message, stack_trace}}`. `error_code` repeats the
 * HTTP status (`status` overrides the one of the error code, for HTTP-only failures such as 405).
 * Stack traces are shown only in development mode. A 503 carries `Retry-After`, as clients retry it.
 */
export function writeError(res: ServerResponse, error: unknown, development: boolean, status?: number): void {
  const connectError = ConnectError.from(error);
  status ??= httpStatusOf(connectError.code);
  let body: string;
  try {
    const internal = status >= 500 && !(error instanceof ConnectError);
    body = errorEnvelope(status, internal ? "internal error" : connectError.rawMessage, development && error instanceof Error ? (error.stack ?? "") : "");
  } catch {
    body = FALLBACK_BODY;
  }
  if (res.headersSent) return void res.end();
  writeJson(res, status, body);
}

/** Writes a JSON body with its status; a 503 carries `Retry-After`, as clients retry it. */
export function writeJson(res: ServerResponse, status: number, body: string): void {
  const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
  res.writeHead(status, status === 503 ? { ...headers, "retry-after": RETRY_AFTER_SECONDS } : headers);
  res.end(body);
}
