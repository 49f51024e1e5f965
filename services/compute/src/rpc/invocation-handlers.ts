import type { ServiceImpl } from "@connectrpc/connect";
import type { ServiceContext } from "@hangar/shared";
import type { ComputeService } from "@hangar/shared/proto/compute";

/** Implements the operations on invocations of hangar.compute.v1.ComputeService. */
export function createInvocationHandlers(_context: ServiceContext): Partial<ServiceImpl<typeof ComputeService>> {
  return {};
}
