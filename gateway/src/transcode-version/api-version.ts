import type { IncomingHttpHeaders } from "node:http";
import { invalidArgument, quoteValue } from "@hangar/shared";

/**
 * The dated API versions a client may name, oldest first: every `RobotoApiVersion` of the newest
 * client SDK (0.62.0's `api_version.py`). A version is its index in this list, so "older than the
 * date a change took effect" is one integer compare.
 */
export const API_VERSIONS = [
  "2025-01-01",
  "2025-07-14",
  "2026-01-02",
  "2026-02-02",
  "2026-02-11",
  "2026-03-13",
  "2026-05-20",
  "2026-07-05",
  "2026-08-10",
  "2026-08-27",
  "2026-09-30",
  "2026-10-02",
  "2026-10-05",
  "2026-10-06",
] as const;

/** One of `API_VERSIONS`, by its date. */
export type ApiVersionDate = (typeof API_VERSIONS)[number];

/** A caller's API version: its index in `API_VERSIONS`. */
export type ApiVersion = number;

/** The newest version: what a request without the header gets. */
export const LATEST_API_VERSION: ApiVersion = API_VERSIONS.length - 1;

/** The header's name as clients send it, and as error messages name it. */
export const API_VERSION_HEADER = "X-Roboto-Api-Version";

const INDEX_BY_DATE = new Map<string, ApiVersion>(API_VERSIONS.map((date, index) => [date, index]));
const LATEST_DATE: string = API_VERSIONS[LATEST_API_VERSION];

/** The index of a known version date (the type admits only those). */
export function versionOf(date: ApiVersionDate): ApiVersion {
  return INDEX_BY_DATE.get(date)!;
}

/**
 * Reads the caller's API version from `X-Roboto-Api-Version` (or its `X-Service-Api-Version`
 * alias, as for the other `X-Roboto-*` headers). Absent means the newest; a value that is not one
 * of `API_VERSIONS` is a 400 naming the header, quoting at most the value's first characters.
 */
export function readApiVersion(headers: IncomingHttpHeaders): ApiVersion {
  const raw = headers["x-roboto-api-version"] ?? headers["x-service-api-version"];
  if (raw === undefined) return LATEST_API_VERSION;
  // The common case, the newest client, costs one string compare.
  if (raw === LATEST_DATE) return LATEST_API_VERSION;
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? "";
  const version = INDEX_BY_DATE.get(value);
  if (version !== undefined) return version;
  throw invalidArgument(
    API_VERSION_HEADER,
    /^\d{4}-\d{2}-\d{2}$/.test(value)
      ? `unknown API version ${quoteValue(value)}; known versions are ${API_VERSIONS[0]} to ${LATEST_DATE} (${API_VERSIONS.join(", ")})`
      : `must be an API version date (YYYY-MM-DD), such as ${LATEST_DATE}, not ${quoteValue(value)}`,
  );
}
