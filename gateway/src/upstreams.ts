import type { DescService } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { createServiceTransport, type ServiceName } from "@hangar/shared";
import { AdminService } from "@hangar/shared/proto/admin";
import { AssistantService } from "@hangar/shared/proto/assistant";
import { ComputeService } from "@hangar/shared/proto/compute";
import { DataService } from "@hangar/shared/proto/data";
import { RegistryService } from "@hangar/shared/proto/registry";

/** Every service the gateway fronts, by name. */
export const SERVICES: Record<ServiceName, DescService> = {
  admin: AdminService,
  data: DataService,
  compute: ComputeService,
  assistant: AssistantService,
  registry: RegistryService,
};

/** The gRPC transports to each service, keyed by the service's full protobuf name. */
export function createUpstreams(urls: Record<ServiceName, string>): Map<string, Transport> {
  const transports = new Map<string, Transport>();
  for (const [name, service] of Object.entries(SERVICES) as [ServiceName, DescService][]) {
    transports.set(service.typeName, createServiceTransport(urls[name]));
  }
  return transports;
}
