import type { ServiceDefinition } from "@hangar/shared";
import { AssistantService } from "@hangar/shared/proto/assistant";

/** The assistant service: running behind its own RPC port; its operations arrive with their issues. */
export function assistantService(): ServiceDefinition {
  return {
    name: "assistant",
    entities: [],
    migrations: [],
    routes: (router) => router.service(AssistantService, {}),
  };
}
