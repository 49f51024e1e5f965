import type { DescService } from "@bufbuild/protobuf";
import type { InProcessEndpoint, ServiceName } from "@hangar/shared";
import { AdminService } from "@hangar/shared/proto/admin";
import { AssistantService } from "@hangar/shared/proto/assistant";
import { ComputeService } from "@hangar/shared/proto/compute";
import { DataService } from "@hangar/shared/proto/data";
import { RegistryService } from "@hangar/shared/proto/registry";
import { createGrpcUnaryClient, type GrpcUnaryClient } from "./grpc-unary-client";
import { createInProcessClient } from "./in-process-client";
import type { SessionOptions } from "./h2/session";

/** Every service the gateway fronts, by name. */
export const SERVICES: Record<ServiceName, DescService> = {
  admin: AdminService,
  data: DataService,
  compute: ComputeService,
  assistant: AssistantService,
  registry: RegistryService,
};

/**
 * Where the gateway reaches a service: the base URL of its RPC port (gRPC over HTTP/2, as in a
 * distributed deployment), or its in-process endpoint when it runs in the gateway's thread.
 */
export type Upstream = string | InProcessEndpoint;

/** A client of each service, keyed by the service's full protobuf name; `connection` tunes the gRPC connections. */
export function createUpstreams(upstreams: Record<ServiceName, Upstream>, connection: SessionOptions = {}): Map<string, GrpcUnaryClient> {
  const clients = new Map<string, GrpcUnaryClient>();
  for (const [name, service] of Object.entries(SERVICES) as [ServiceName, DescService][]) {
    const upstream = upstreams[name];
    clients.set(service.typeName, typeof upstream === "string" ? createGrpcUnaryClient(upstream, connection) : createInProcessClient(upstream));
  }
  return clients;
}
