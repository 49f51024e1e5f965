import { invalidArgument } from "@hangar/shared";

/** Longest name of an org, user id or token, in characters. */
export const MAX_NAME_LENGTH = 256;

/** Trims a name from a request and checks it is 1 to `MAX_NAME_LENGTH` characters, naming `field` on error. */
export function checkName(value: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) throw invalidArgument(field, "must not be empty");
  if (trimmed.length > MAX_NAME_LENGTH) throw invalidArgument(field, `must be at most ${MAX_NAME_LENGTH} characters`);
  return trimmed;
}
