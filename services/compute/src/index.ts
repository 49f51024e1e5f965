import type { ServiceDefinition } from "@hangar/shared";
import { ComputeService } from "@hangar/shared/proto/compute";

/** The compute service: running behind its own RPC port; its operations arrive with their issues. */
export function computeService(): ServiceDefinition {
  return {
    name: "compute",
    entities: [],
    migrations: [],
    routes: (router) => router.service(ComputeService, {}),
  };
}
