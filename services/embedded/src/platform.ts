import { adminService, type AdminServiceOptions, type BootstrapResult } from "@hangar/admin";
import { assistantService } from "@hangar/assistant";
import { computeService, type ComputeServiceOptions } from "@hangar/compute";
import { dataService, type DataServiceOptions, type ObjectStore } from "@hangar/data";
import { startGateway, type Gateway, type GatewayOptions, type Upstream } from "@hangar/gateway";
import { registryService } from "@hangar/registry";
import { runService, type EventTransport, type InProcessEndpoint, type Logger, type PeerLocation, type RunningService, type ServiceName } from "@hangar/shared";

/** What the single-process platform needs. */
export interface PlatformOptions {
  databaseUrl: string;
  transport: EventTransport;
  internalAuthSecret: string;
  /** Gateway port; 0 picks a free one. */
  port: number;
  host?: string;
  bootstrapToken?: string;
  authCacheTtlMs: number;
  /** The gateway's public base URL (`PUBLIC_URL`; see GatewayOptions). */
  publicUrl?: string;
  development: boolean;
  logger: Logger;
  /** Where file bytes live; the caller owns it and closes it. */
  objectStore: ObjectStore;
  /** Passed to the gateway: called after each routed request with its status. */
  onServed?: GatewayOptions["onServed"];
  /** Options of the compute service (runner lease timings). */
  compute?: ComputeServiceOptions;
  /** Options of the data service besides its object store (export retention). */
  data?: Omit<DataServiceOptions, "objectStore">;
  /** Options of the admin service besides the bootstrap (the SMTP server of notification emails). */
  admin?: Pick<AdminServiceOptions, "smtp" | "emailIntervalMs">;
}

/** The running platform. */
export interface Platform {
  gateway: Gateway;
  services: Record<ServiceName, RunningService>;
  /** Set on the first start: the bootstrap org, user and token. */
  bootstrap: BootstrapResult | undefined;
  close(): Promise<void>;
}

/** The five services, started in this thread. */
export interface StartedServices {
  services: Record<ServiceName, RunningService>;
  bootstrap: BootstrapResult | undefined;
  urls: Record<ServiceName, string>;
  /** Each service's RPCs for callers in this thread. */
  inProcess: Record<ServiceName, InProcessEndpoint>;
  close(): Promise<void>;
}

/** Starts the five services, each behind its own RPC port on loopback and calling its peers in process. */
export async function startServices(options: Omit<PlatformOptions, "port" | "host" | "authCacheTtlMs" | "development" | "onServed" | "publicUrl">): Promise<StartedServices> {
  let bootstrap: BootstrapResult | undefined;
  // Peers call each other in process, as the gateway calls them; their ports serve everyone else.
  const peers: Partial<Record<ServiceName, PeerLocation>> = {};
  const runtime = {
    databaseUrl: options.databaseUrl,
    internalAuthSecret: options.internalAuthSecret,
    transport: options.transport,
    logger: options.logger,
    port: 0,
    locate: (name: ServiceName) => peers[name],
  };
  const definitions = [
    adminService({ ...options.admin, ...(options.bootstrapToken ? { bootstrapToken: options.bootstrapToken } : {}), onBootstrap: (r) => (bootstrap = r) }),
    dataService({ ...options.data, objectStore: options.objectStore }),
    computeService(options.compute),
    assistantService(),
    registryService(),
  ];
  const started: RunningService[] = [];
  try {
    for (const definition of definitions) {
      const service = await runService(definition, runtime);
      peers[service.name] = { url: service.url, inProcess: service.inProcess };
      started.push(service);
    }
  } catch (error) {
    await Promise.all(started.map((s) => s.close()));
    throw error;
  }
  return {
    services: Object.fromEntries(started.map((s) => [s.name, s])) as Record<ServiceName, RunningService>,
    urls: Object.fromEntries(started.map((s) => [s.name, s.url])) as Record<ServiceName, string>,
    inProcess: Object.fromEntries(started.map((s) => [s.name, s.inProcess])) as Record<ServiceName, InProcessEndpoint>,
    bootstrap,
    async close() {
      for (const service of [...started].reverse()) await service.close();
    },
  };
}

/**
 * Starts the five services and the gateway in front of them, all in this thread, as `npm start`
 * does; the end-to-end tests run the platform this way (and reach into the services). The gateway
 * calls the services through their in-process endpoints (protobuf-encoded, through the services'
 * own interceptors, deadlines and cancellation), as the services call each other; their RPC ports
 * serve everyone else (the runner, direct gRPC clients).
 */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const started = await startServices(options);
  const gateway = await startGateway(gatewayOptions(options, started.inProcess));
  return {
    gateway,
    services: started.services,
    bootstrap: started.bootstrap,
    async close() {
      await gateway.close();
      await started.close();
    },
  };
}

/** The gateway's options for a platform whose services it reaches at `upstreams`. */
export function gatewayOptions(
  options: Pick<PlatformOptions, "port" | "host" | "internalAuthSecret" | "authCacheTtlMs" | "development" | "logger" | "onServed" | "publicUrl">,
  upstreams: Record<ServiceName, Upstream>,
): GatewayOptions {
  return {
    port: options.port,
    ...(options.host ? { host: options.host } : {}),
    upstreams,
    internalAuthSecret: options.internalAuthSecret,
    authCacheTtlMs: options.authCacheTtlMs,
    development: options.development,
    logger: options.logger.child({ component: "gateway" }),
    ...(options.onServed ? { onServed: options.onServed } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
  };
}
