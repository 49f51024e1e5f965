/**
 * SQLSTATEs that mean the server cannot serve right now rather than that the statement is wrong:
 * class 08 (connection exceptions, matched by prefix), 57P01-57P03 (administrator, crash or
 * start-up shutdown) and 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
/** Socket errors on the way to the server (refused while it is down, reset when it is killed). */
const UNAVAILABLE_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/**
 * Messages of the client libraries that carry no code: pg's ended connections and connect timeout
 * ("timeout expired") and knex's pool timeout (how a request waiting on an unreachable server ends).
 */
const UNAVAILABLE_MESSAGES = /Connection terminated|Connection ended unexpectedly|is not queryable|Timeout acquiring a connection|^timeout expired$/i;

/** How far down `cause` chains and AggregateErrors to look; real chains are two or three deep. */
const MAX_DEPTH = 5;

/**
 * Whether `error` says that PostgreSQL is unreachable or refusing work for now (stopped, restarting,
 * out of connections) rather than that a statement failed. Such failures are the outage of a
 * dependency: callers get UNAVAILABLE (HTTP 503, which clients retry), never INTERNAL. Looks at
 * pg's and MikroORM's `code`, Node's socket errno, and through `cause` and AggregateError chains.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH || typeof error !== "object" || error === null) return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === "string" && (code.startsWith("08") || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
  if (typeof message === "string" && UNAVAILABLE_MESSAGES.test(message)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}
