import { createHash, randomBytes } from "node:crypto";
import { invalidArgument, quoteValue } from "@hangar/shared";

/** Longest lifetime a token may be given, in days (ten years). */
export const MAX_EXPIRY_DAYS = 3650;

/**
 * Creates a new token secret. 32 random bytes make guessing infeasible, which is also why a fast
 * hash (SHA-256) is the right way to store it: unlike passwords, these secrets have full entropy.
 */
export function newTokenSecret(): string {
  return `hgr_${randomBytes(32).toString("base64url")}`;
}

/** What is stored of a secret: its SHA-256, in hex. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** When a token created now with `expiryDays` expires; validates the range. */
export function expiryFrom(expiryDays: bigint, now = new Date()): Date {
  if (expiryDays < 1n || expiryDays > BigInt(MAX_EXPIRY_DAYS)) {
    throw invalidArgument("expiry_days", `must be from 1 to ${MAX_EXPIRY_DAYS}`);
  }
  return new Date(now.getTime() + Number(expiryDays) * 86_400_000);
}

/** Whether a token may authenticate at `now`. */
export function isUsable(token: { enabled: boolean; expires: Date | null }, now = new Date()): boolean {
  return token.enabled && (token.expires === null || token.expires.getTime() > now.getTime());
}

/** The client SDK's API scopes (`roboto.auth.scope.ApiScope`). */
export const API_SCOPES = ["api.everything_else", "datasets.create", "files.import", "files.upload"] as const;

/**
 * Validates api_scopes from a request against the SDK's scopes, naming the field on error; drops
 * repeats (the SDK sends a set). Empty means unrestricted.
 */
export function parseApiScopes(values: readonly string[], field = "api_scopes"): string[] {
  values.forEach((value, i) => {
    if (!(API_SCOPES as readonly string[]).includes(value)) {
      throw invalidArgument(`${field}[${i}]`, `unknown scope ${quoteValue(value)}; expected one of ${API_SCOPES.join(", ")}`);
    }
  });
  return [...new Set(values)];
}
