import type { IncomingMessage, ServerResponse } from "node:http";
import { create, type DescService } from "@bufbuild/protobuf";
import type { Context } from "@opentelemetry/api";
import { COMPONENT_READY, type ServiceName } from "@hangar/shared";
import { CheckHealthRequestSchema, HealthService } from "@hangar/shared/proto/common";
import { errorEnvelope, writeJson } from "./errors";
import type { GrpcUnaryClient, UnaryCallOptions } from "./grpc-unary-client";
import { SERVICES } from "./upstreams";

/**
 * Deadline of each service's CheckHealth during `/readyz` (2 s): twice the services' own bound on
 * their database check, so a hung database is reported as such, while a service that does not
 * answer at all still leaves the caller an answer within seconds.
 */
export const READINESS_TIMEOUT_MS = 2_000;

/** Each service's components, by service name: component name to COMPONENT_READY or why it is not ready. */
export type Readiness = Record<ServiceName, Record<string, string>>;

/** What the health endpoints need. */
export interface HealthOptions {
  /** The gateway's clients of the services, keyed by full protobuf service name (`createUpstreams`). */
  upstreams: Map<string, GrpcUnaryClient>;
  /** Options of a call made as the gateway itself (a signed service principal); the deadline is replaced. */
  asGateway: (traceContext: Context) => UnaryCallOptions;
}

/** Answers one health request (`req` for the few that read a header, such as the discovery document's Host). */
export type HealthEndpoint = (res: ServerResponse, traceContext: Context, query: URLSearchParams, req: IncomingMessage) => Promise<void>;

/**
 * The components `/readyz?exclude=` may leave out of the verdict (as Kubernetes' own `/readyz` does):
 * the services' `database` and `events`, shared by every replica, and `rpc` (a service unreachable).
 */
export const READINESS_COMPONENTS = ["database", "events", "rpc"] as const;

/**
 * The gateway's GET endpoints that need no token, by path, answered before route matching:
 * `/healthz` (liveness: this process answers; no upstream calls) is 200 `{"data":{"status":"ok"}}`;
 * `/readyz` asks every service's CheckHealth in parallel and is 200
 * `{"data":{"status":"ready","services":{...}}}` when every component is ready, else 503 with the
 * error envelope naming each component that is not (`not ready: data.events connecting; ...`) and
 * the same `data` beside it, with status `not_ready`. Each `exclude=<component>` leaves that component
 * out of the verdict (not out of `data`): the gateway's readiness probe asks
 * `/readyz?exclude=database&exclude=events`, ready while every service answers (deploy/README.md).
 */
export function healthEndpoints(options: HealthOptions): Map<string, HealthEndpoint> {
  return new Map<string, HealthEndpoint>([
    ["/healthz", async (res) => writeJson(res, 200, JSON.stringify({ data: { status: "ok" } }))],
    ["/readyz", (res, traceContext, query) => answerReadiness(options, res, traceContext, query.getAll("exclude"))],
  ]);
}

async function answerReadiness(options: HealthOptions, res: ServerResponse, traceContext: Context, excluded: string[]): Promise<void> {
  if (!excluded.every((name) => (READINESS_COMPONENTS as readonly string[]).includes(name))) {
    return writeJson(res, 400, errorEnvelope(400, `exclude: must be one of ${READINESS_COMPONENTS.join(", ")}`));
  }
  writeReadiness(res, await checkReadiness(options, traceContext), new Set(excluded));
}

/** Every service's components; a service that does not answer has one component, `rpc`, saying why. */
async function checkReadiness(options: HealthOptions, traceContext: Context): Promise<Readiness> {
  const call = { ...options.asGateway(traceContext), timeoutMs: READINESS_TIMEOUT_MS };
  const entries = await Promise.all(
    (Object.entries(SERVICES) as [ServiceName, DescService][]).map(async ([name, service]) => {
      const upstream = options.upstreams.get(service.typeName)!;
      try {
        const response = await upstream.call(HealthService.method.checkHealth, create(CheckHealthRequestSchema), call);
        return [name, response.components] as const;
      } catch (error) {
        return [name, { rpc: error instanceof Error ? error.message : String(error) }] as const;
      }
    }),
  );
  return Object.fromEntries(entries) as Readiness;
}

function writeReadiness(res: ServerResponse, services: Readiness, excluded: ReadonlySet<string>): void {
  const notReady = Object.entries(services).flatMap(([service, components]) =>
    Object.entries(components)
      .filter(([component, state]) => state !== COMPONENT_READY && !excluded.has(component))
      .map(([component, state]) => `${service}.${component} ${state}`),
  );
  if (notReady.length === 0) return writeJson(res, 200, JSON.stringify({ data: { status: "ready", services } }));
  writeJson(res, 503, errorEnvelope(503, `not ready: ${notReady.join("; ")}`, "", { status: "not_ready", services }));
}
