import { invalidArgument } from "../errors";

/** The page size when a request gives none, per the spec's QuerySpecification. */
export const DEFAULT_LIMIT = 1000;

/** The largest page served; larger requests are clamped rather than refused. */
export const MAX_LIMIT = 1000;

/**
 * Resolves a requested page size: absent gives DEFAULT_LIMIT, values below 1 or non-integers are
 * a 400 naming `field`, and values above MAX_LIMIT are clamped. Accepts bigint for proto int64.
 */
export function resolveLimit(limit: bigint | number | null | undefined, field = "limit"): number {
  if (limit === undefined || limit === null) return DEFAULT_LIMIT;
  if (typeof limit === "number" && !Number.isInteger(limit)) {
    throw invalidArgument(field, `must be an integer, got ${limit}`);
  }
  if (limit < 1) throw invalidArgument(field, `must be at least 1, got ${limit}`);
  return limit > MAX_LIMIT ? MAX_LIMIT : Number(limit);
}
