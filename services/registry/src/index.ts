import type { ServiceDefinition } from "@hangar/shared";
import { RegistryService } from "@hangar/shared/proto/registry";

/** The registry service: running behind its own RPC port; its operations arrive with their issues. */
export function registryService(): ServiceDefinition {
  return {
    name: "registry",
    entities: [],
    migrations: [],
    routes: (router) => router.service(RegistryService, {}),
  };
}
