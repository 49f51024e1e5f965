import type { ServiceDefinition } from "@hangar/shared";
import { DataService } from "@hangar/shared/proto/data";
import { createDataServiceImpl } from "./rpc/data-service";
import { dataEntities } from "./store/entities";
import { dataMigrations } from "./store/migrations";

/** The data service: datasets (and, with later issues, files, topics, events, sessions, devices). */
export function dataService(): ServiceDefinition {
  return {
    name: "data",
    entities: dataEntities,
    migrations: dataMigrations,
    routes: (router, context) => router.service(DataService, createDataServiceImpl(context)),
  };
}
