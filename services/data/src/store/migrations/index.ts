import type { MigrationObject } from "@mikro-orm/core";
import { Migration0001Datasets } from "./0001-datasets";
import { Migration0002Files } from "./0002-files";

/** The data schema's migrations in the order they apply. */
export const dataMigrations: MigrationObject[] = [
  { name: "0001-datasets", class: Migration0001Datasets },
  { name: "0002-files", class: Migration0002Files },
];
