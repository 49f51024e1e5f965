import type { MigrationObject } from "@mikro-orm/core";
import { Migration0001Identity } from "./0001-identity";
import { Migration0002UserRole } from "./0002-user-role";
import { Migration0003MembershipAudit } from "./0003-membership-audit";
import { Migration0004Notifications } from "./0004-notifications";
import { Migration0005CredentialRequests } from "./0005-credential-requests";

/** The admin schema's migrations in the order they apply. */
export const adminMigrations: MigrationObject[] = [
  { name: "0001-identity", class: Migration0001Identity },
  { name: "0002-user-role", class: Migration0002UserRole },
  { name: "0003-membership-audit", class: Migration0003MembershipAudit },
  { name: "0004-notifications", class: Migration0004Notifications },
  { name: "0005-credential-requests", class: Migration0005CredentialRequests },
];
