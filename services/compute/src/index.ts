import type { ServiceDefinition } from "@hangar/shared";
import { ComputeService } from "@hangar/shared/proto/compute";
import { computeEntities } from "./store/entities";
import { computeMigrations } from "./store/migrations";

/** The compute service: actions, invocations, triggers and the runner protocol. */
export function computeService(): ServiceDefinition {
  return {
    name: "compute",
    entities: [...computeEntities],
    migrations: computeMigrations,
    routes: (router) => router.service(ComputeService, {}),
  };
}
