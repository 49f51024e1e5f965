import type { MigrationObject } from "@mikro-orm/core";
import { Migration0001Datasets } from "./0001-datasets";

/** The data schema's migrations in the order they apply. */
export const dataMigrations: MigrationObject[] = [{ name: "0001-datasets", class: Migration0001Datasets }];
