import { Code, ConnectError } from "@connectrpc/connect";
import { peerClients, type ServiceRuntime } from "@hangar/shared";
import { ComputeService } from "@hangar/shared/proto/compute";
import type { ComputeEntities, ComputeEntityType } from "../domain/comment-use-cases";

/**
 * The compute service's actions, invocations and triggers, asked over gRPC as the data service
 * acting in the org (as the compute service asks the data service about datasets): an entity is
 * there when its get answers, and not when it is a 404.
 */
export function computeEntities(runtime: Pick<ServiceRuntime, "locate" | "internalAuthSecret">): ComputeEntities {
  const compute = peerClients({ service: ComputeService, peer: "compute", caller: "data", locate: runtime.locate, internalAuthSecret: runtime.internalAuthSecret });
  const get: Record<ComputeEntityType, (orgId: string, id: string) => Promise<unknown>> = {
    action: (orgId, name) => compute(orgId).getAction({ name }),
    invocation: (orgId, invocationId) => compute(orgId).getInvocation({ invocationId }),
    trigger: (orgId, name) => compute(orgId).getTrigger({ name }),
  };
  return {
    async exists(orgId, entityType, entityId) {
      try {
        await get[entityType](orgId, entityId);
        return true;
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.NotFound) return false;
        throw error;
      }
    },
  };
}
