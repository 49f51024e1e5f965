import { Code, ConnectError } from "@connectrpc/connect";
import { quoteValue } from "./quote";

/**
 * The platform has one error type, ConnectError; these factories give each failure the code
 * that maps to the right HTTP status in the gateway (see gateway/src/errors.ts).
 */
export function invalidArgument(field: string, problem: string): ConnectError {
  return new ConnectError(`${field}: ${problem}`, Code.InvalidArgument);
}

/** A request that is wrong as a whole rather than in one field. */
export function badRequest(message: string): ConnectError {
  return new ConnectError(message, Code.InvalidArgument);
}

/** An addressed resource that does not exist or that the caller may not see. */
export function notFound(what: string, id: string): ConnectError {
  return new ConnectError(`${what} ${quoteValue(id)} not found`, Code.NotFound);
}

/** A write that conflicts with existing state (duplicate name, resource in use). */
export function conflict(message: string): ConnectError {
  return new ConnectError(message, Code.AlreadyExists);
}

/** A caller without valid credentials, or without the access an operation needs (the spec's 401). */
export function unauthenticated(message: string): ConnectError {
  return new ConnectError(message, Code.Unauthenticated);
}

/**
 * An authenticated caller refused an authorization decision about one field of its request (a user
 * it may not name as the principal something runs as): 403, naming the field as a 400 does.
 */
export function permissionDenied(field: string, problem: string): ConnectError {
  return new ConnectError(`${field}: ${problem}`, Code.PermissionDenied);
}

/** An authenticated caller refused an operation as a whole (a role it lacks, an org it no longer belongs to): 403. */
export function forbidden(message: string): ConnectError {
  return new ConnectError(message, Code.PermissionDenied);
}

/** A request refused because of the resource's current state (for example a disallowed status move). */
export function failedPrecondition(message: string): ConnectError {
  return new ConnectError(message, Code.FailedPrecondition);
}

/** A dependency (a peer service, the object store) that cannot be reached or is not configured. */
export function unavailable(message: string): ConnectError {
  return new ConnectError(message, Code.Unavailable);
}
