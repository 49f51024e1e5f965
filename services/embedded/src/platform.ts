import { adminService, type BootstrapResult } from "@hangar/admin";
import { assistantService } from "@hangar/assistant";
import { computeService } from "@hangar/compute";
import { dataService } from "@hangar/data";
import { startGateway, type Gateway, type GatewayOptions } from "@hangar/gateway";
import { registryService } from "@hangar/registry";
import { runService, type EventTransport, type Logger, type RunningService, type ServiceName } from "@hangar/shared";

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
  development: boolean;
  logger: Logger;
  /** Passed to the gateway: called after each routed request with its status. */
  onServed?: GatewayOptions["onServed"];
}

/** The running platform. */
export interface Platform {
  gateway: Gateway;
  services: Record<ServiceName, RunningService>;
  /** Set on the first start: the bootstrap org, user and token. */
  bootstrap: BootstrapResult | undefined;
  close(): Promise<void>;
}

/**
 * Starts the five services, each behind its own RPC port on loopback, and the gateway in front of
 * them. The embedded default and the end-to-end tests both run the platform this way, so the
 * RPC boundaries are exercised exactly as in a distributed deployment.
 */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  let bootstrap: BootstrapResult | undefined;
  const runtime = { databaseUrl: options.databaseUrl, internalAuthSecret: options.internalAuthSecret, transport: options.transport, logger: options.logger, port: 0 };
  const definitions = [
    adminService({ ...(options.bootstrapToken ? { bootstrapToken: options.bootstrapToken } : {}), onBootstrap: (r) => (bootstrap = r) }),
    dataService(),
    computeService(),
    assistantService(),
    registryService(),
  ];
  const started: RunningService[] = [];
  try {
    for (const definition of definitions) started.push(await runService(definition, runtime));
  } catch (error) {
    await Promise.all(started.map((s) => s.close()));
    throw error;
  }
  const services = Object.fromEntries(started.map((s) => [s.name, s])) as Record<ServiceName, RunningService>;
  const gateway = await startGateway({
    port: options.port,
    ...(options.host ? { host: options.host } : {}),
    upstreams: Object.fromEntries(started.map((s) => [s.name, s.url])) as Record<ServiceName, string>,
    internalAuthSecret: options.internalAuthSecret,
    authCacheTtlMs: options.authCacheTtlMs,
    development: options.development,
    logger: options.logger.child({ component: "gateway" }),
    ...(options.onServed ? { onServed: options.onServed } : {}),
  });
  return {
    gateway,
    services,
    bootstrap,
    async close() {
      await gateway.close();
      for (const service of started.reverse()) await service.close();
    },
  };
}
