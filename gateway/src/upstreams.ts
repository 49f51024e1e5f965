import type { DescService } from "@bufbuild/protobuf";
import type { ServiceName } from "@hangar/shared";
import { AdminService } from "@hangar/shared/proto/admin";
import { AssistantService } from "@hangar/shared/proto/assistant";
import { ComputeService } from "@hangar/shared/proto/compute";
import { DataService } from "@hangar/shared/proto/data";
import { RegistryService } from "@hangar/shared/proto/registry";
import { createGrpcUnaryClient, type GrpcUnaryClient } from "./grpc-unary-client";
import type { SessionOptions } from "./h2/session";

/** Every service the gateway fronts, by name. */
export const SERVICES: Record<ServiceName, DescService> = {
  admin: AdminService,
  data: DataService,
  compute: ComputeService,
  assistant: AssistantService,
  registry: RegistryService,
};

/** A gRPC client of each service, keyed by the service's full protobuf name; `connection` tunes their connections. */
export function createUpstreams(urls: Record<ServiceName, string>, connection: SessionOptions = {}): Map<string, GrpcUnaryClient> {
  const clients = new Map<string, GrpcUnaryClient>();
  for (const [name, service] of Object.entries(SERVICES) as [ServiceName, DescService][]) {
    clients.set(service.typeName, createGrpcUnaryClient(urls[name], connection));
  }
  return clients;
}
