import type { Client } from "@connectrpc/connect";
import { peerClients, type ServiceContext } from "@hangar/shared";
import { DataService } from "@hangar/shared/proto/data";

/** The compute service's clients of the data service, one per org it acts in (cached). */
export function dataServiceClients(context: ServiceContext): (orgId: string) => Client<typeof DataService> {
  return peerClients({
    service: DataService,
    peer: "data",
    caller: "compute",
    locate: context.runtime.locate,
    internalAuthSecret: context.runtime.internalAuthSecret,
  });
}
