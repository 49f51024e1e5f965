import type { ServiceImpl } from "@connectrpc/connect";
import type { ServiceContext } from "@hangar/shared";
import type { ComputeService } from "@hangar/shared/proto/compute";

/** Implements the operations on actions of hangar.compute.v1.ComputeService. */
export function createActionHandlers(_context: ServiceContext): Partial<ServiceImpl<typeof ComputeService>> {
  return {};
}
