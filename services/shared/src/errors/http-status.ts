import { Code } from "@connectrpc/connect";

/**
 * The one table from RPC codes to HTTP statuses (the gateway's answers, and the error envelopes of
 * refused elements in batch replies). Per the spec, a caller without the access an operation
 * needs gets 401; refused state moves (FailedPrecondition) are bad requests (400).
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
