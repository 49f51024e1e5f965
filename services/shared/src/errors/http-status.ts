import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { BatchErrorSchema } from "../gen/hangar/common/v1/common_pb";
import { capMessage } from "./quote";

/**
 * The one table from RPC codes to HTTP statuses. Per the spec, a caller without the access an
 * operation needs gets 401; refused state moves (FailedPrecondition) are bad requests (400). The
 * gateway answers with it, and batch operations give each item's error the status it would get alone.
 */
const STATUS_BY_CODE: Record<Code, number> = {
  [Code.Canceled]: 499,
  [Code.Unknown]: 500,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 400,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Internal]: 500,
  [Code.Unavailable]: 503,
  [Code.DataLoss]: 500,
  [Code.Unauthenticated]: 401,
};

/** The HTTP status of an RPC error code. */
export function httpStatusOf(code: Code): number {
  return STATUS_BY_CODE[code] ?? 500;
}

/**
 * A refused batch element's error, as the whole-request error envelope would carry it (the status
 * the element alone would have answered, the message capped like every message leaving a service).
 */
export function batchErrorOf(error: ConnectError): MessageInitShape<typeof BatchErrorSchema> {
  return { error: { errorCode: httpStatusOf(error.code), message: capMessage(error.rawMessage), stackTrace: "" } };
}

/**
 * Runs one element of a batch on its own: `{data}` when it succeeds, `{error}` when it is refused
 * (a 4xx the element alone would have answered), so one refusal stops no other element. A failure
 * of no request's making (a 5xx, or not an RPC error at all) fails the whole batch instead.
 */
export async function settleBatchElement<T>(run: () => Promise<T>): Promise<{ data: T } | { error: MessageInitShape<typeof BatchErrorSchema> }> {
  try {
    return { data: await run() };
  } catch (error) {
    if (!(error instanceof ConnectError) || httpStatusOf(error.code) >= 500) throw error;
    return { error: batchErrorOf(error) };
  }
}
