import { invalidArgument } from "@hangar/shared";

/** Roles a member can hold in an org. Owners and admins administer it; members use it. */
export const ROLES = ["owner", "admin", "member"] as const;
export type Role = (typeof ROLES)[number];

/** Whether the roles allow administering the org (members, roles, settings). */
export function canAdminister(roles: readonly string[] | undefined): boolean {
  return roles !== undefined && (roles.includes("owner") || roles.includes("admin"));
}

/** Validates role names from a request, naming the field on error. */
export function parseRoles(values: readonly string[], field: string): Role[] {
  return values.map((value, i) => {
    if (!(ROLES as readonly string[]).includes(value)) {
      throw invalidArgument(`${field}[${i}]`, `unknown role '${value}'; expected one of ${ROLES.join(", ")}`);
    }
    return value as Role;
  });
}

/** Applies a role edit; a member always keeps at least the `member` role. */
export function editRoles(current: readonly string[], add: readonly Role[], remove: readonly Role[]): string[] {
  const next = new Set(current);
  for (const role of add) next.add(role);
  for (const role of remove) next.delete(role);
  next.add("member");
  return ROLES.filter((role) => next.has(role));
}
