import { invalidArgument, quoteValue } from "@hangar/shared";

/**
 * Roles a member can hold in an org, named as the client SDK names them (`OrgRoleName`): owners
 * and admins administer the org (`administers` in the shared library); every member holds `user`.
 */
export const ROLES = ["owner", "admin", "user"] as const;
export type Role = (typeof ROLES)[number];

/** The role every member of an org holds. */
export const MEMBER_ROLE: Role = "user";

/**
 * Validates role names from a request, naming the field on error. `member`, the plain member role's
 * other common name, is read as `user`.
 */
export function parseRoles(values: readonly string[], field: string): Role[] {
  return values.map((value, i) => {
    const role = value === "member" ? MEMBER_ROLE : value;
    if (!(ROLES as readonly string[]).includes(role)) {
      throw invalidArgument(`${field}[${i}]`, `unknown role ${quoteValue(value)}; expected one of ${ROLES.join(", ")}`);
    }
    return role as Role;
  });
}

/** Applies a role edit; a member always keeps at least the member role. */
export function editRoles(current: readonly string[], add: readonly Role[], remove: readonly Role[]): string[] {
  const next = new Set(current);
  for (const role of add) next.add(role);
  for (const role of remove) next.delete(role);
  next.add(MEMBER_ROLE);
  return ROLES.filter((role) => next.has(role));
}
