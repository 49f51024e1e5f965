import { Code, ConnectError } from "@connectrpc/connect";
import { BUILTIN_ACTION_OWNER_ORG, peerClients, type ServiceRuntime } from "@hangar/shared";
import { ComputeService } from "@hangar/shared/proto/compute";
import type { ComputeEntities, ComputeEntityType } from "../domain/comment-use-cases";
import type { BuiltinInvocations } from "../domain/platform-writers";

/** What the data service asks the compute service, over gRPC as the data service acting in an org. */
export interface ComputePorts {
  entities: ComputeEntities;
  builtinInvocations: BuiltinInvocations;
}

/**
 * The compute service's actions, invocations and triggers, asked over gRPC as the data service
 * acting in the org (as the compute service asks the data service about datasets): an entity is
 * there when its get answers, and not when it is a 404. One client per org serves both ports.
 */
export function computePorts(runtime: Pick<ServiceRuntime, "locate" | "internalAuthSecret">): ComputePorts {
  const compute = peerClients({ service: ComputeService, peer: "compute", caller: "data", locate: runtime.locate, internalAuthSecret: runtime.internalAuthSecret });
  const get: Record<ComputeEntityType, (orgId: string, id: string) => Promise<unknown>> = {
    action: (orgId, name) => compute(orgId).getAction({ name }),
    invocation: (orgId, invocationId) => compute(orgId).getInvocation({ invocationId }),
    trigger: (orgId, name) => compute(orgId).getTrigger({ name }),
  };
  return {
    entities: {
      exists: async (orgId, entityType, entityId) => (await unlessNotFound(get[entityType](orgId, entityId))) !== undefined,
    },
    builtinInvocations: {
      async runsBuiltinAction(orgId, invocationId) {
        const found = await unlessNotFound(compute(orgId).getInvocation({ invocationId }));
        // Only the platform creates actions in the built-in owner's org: no user is its member.
        return found?.invocation?.provenance?.action?.orgId === BUILTIN_ACTION_OWNER_ORG;
      },
    },
  };
}

/** The answer of a get, or undefined when it is a 404. */
async function unlessNotFound<T>(answer: Promise<T>): Promise<T | undefined> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof ConnectError && error.code === Code.NotFound) return undefined;
    throw error;
  }
}
