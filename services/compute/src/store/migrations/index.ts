import type { MigrationObject } from "@mikro-orm/core";
import { Migration0001ActionsInvocations } from "./0001-actions-invocations";

/** The compute schema's migrations in the order they apply. */
export const computeMigrations: MigrationObject[] = [
  { name: "0001-actions-invocations", class: Migration0001ActionsInvocations },
];
