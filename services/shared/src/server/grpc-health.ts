import { setTimeout as sleep } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthCheckResponseSchema,
  HealthListResponseSchema,
  type HealthCheckResponse,
} from "../gen/grpc/health/v1/health_pb";

/**
 * The health service name that is SERVING whenever the process answers RPCs, whatever its
 * dependencies do: what the manifests' liveness and readiness probes ask (`grpc: {service: ...}`),
 * so that an outage of the shared database restarts or unreadies no pod (deploy/README.md).
 */
export const PROCESS_HEALTH_SERVICE = "process";

/** How often a `Watch` call re-checks the status (5 s), sending a message only when it changes. */
export const HEALTH_WATCH_INTERVAL_MS = 5_000;

/** What the health protocol reports on. */
export interface GrpcHealthOptions {
  /** The served protobuf services (`hangar.data.v1.DataService`, ...), each a health service name. */
  services: readonly string[];
  /** Whether the server can do its work now (for the services: their database answers). */
  serving: () => Promise<boolean>;
  /** Watch's re-check interval; default HEALTH_WATCH_INTERVAL_MS. */
  watchIntervalMs?: number;
}

/**
 * Registers the standard gRPC health protocol (`grpc.health.v1.Health`: Check, List, Watch), so that
 * `grpc-health-probe` and Kubernetes' native gRPC probes work. The server as a whole (`""`) and
 * each of its services are SERVING while `serving()` says so, else NOT_SERVING;
 * PROCESS_HEALTH_SERVICE is always SERVING; another name is NOT_FOUND (Check) or SERVICE_UNKNOWN (Watch).
 */
export function registerGrpcHealth(router: ConnectRouter, options: GrpcHealthOptions): void {
  const dependent = new Set(["", ...options.services]);
  const statusOf = async (service: string): Promise<ServingStatus> => {
    if (service === PROCESS_HEALTH_SERVICE) return ServingStatus.SERVING;
    if (!dependent.has(service)) return ServingStatus.SERVICE_UNKNOWN;
    return (await options.serving()) ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
  };
  const interval = options.watchIntervalMs ?? HEALTH_WATCH_INTERVAL_MS;
  router.service(Health, {
    async check({ service }) {
      const status = await statusOf(service);
      if (status === ServingStatus.SERVICE_UNKNOWN) throw new ConnectError(`unknown service '${service.slice(0, 64)}'`, Code.NotFound);
      return response(status);
    },
    async list() {
      const statuses: Record<string, HealthCheckResponse> = {};
      for (const name of [...dependent, PROCESS_HEALTH_SERVICE]) statuses[name] = response(await statusOf(name));
      return create(HealthListResponseSchema, { statuses });
    },
    async *watch({ service }, context) {
      let last: ServingStatus | undefined;
      while (!context.signal.aborted) {
        const status = await statusOf(service);
        if (status !== last) yield response(status);
        last = status;
        await sleep(interval, undefined, { signal: context.signal }).catch(() => undefined);
      }
    },
  });
}

function response(status: ServingStatus): HealthCheckResponse {
  return create(HealthCheckResponseSchema, { status });
}
