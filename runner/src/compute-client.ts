import type { Client } from "@connectrpc/connect";
import { signedClient, type Principal } from "@hangar/shared";
import { ComputeService } from "@hangar/shared/proto/compute";

/** The compute service as a runner sees it. */
export type ComputeClient = Client<typeof ComputeService>;

/**
 * A gRPC client of the compute service that calls as the runner: a service principal named
 * `runner:<id>`, signed with the internal key, as the runner protocol requires.
 */
export function createComputeClient(options: { computeUrl: string; runnerId: string; internalAuthSecret: string }): ComputeClient {
  const principal: Principal = { kind: "service", subject: `runner:${options.runnerId}`, memberships: [], isSystemAdmin: false };
  return signedClient({ service: ComputeService, baseUrl: options.computeUrl, principal, internalAuthSecret: options.internalAuthSecret });
}
