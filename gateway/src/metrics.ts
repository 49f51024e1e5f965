import type { ServerResponse } from "node:http";
import { Code, ConnectError } from "@connectrpc/connect";
import { createCounter, createHistogram, METRICS_CONTENT_TYPE, renderMetrics, type HistogramCell } from "@hangar/shared";
import type { GrpcUnaryClient } from "./grpc-unary-client";
import type { Route } from "./routes";
import { withRerouteTwins } from "./transcode-version";

/** What the gateway records per request. */
export interface GatewayMetrics {
  /** A request answered: its route (undefined for the gateway's own paths and unknown ones), status and duration in seconds. */
  served(route: Route | undefined, status: number, seconds: number): void;
}

/** The `operation` label of requests that matched no route: the probes, /openapi.json, /metrics, 404s and 405s. */
const UNROUTED = "unrouted";

/**
 * `hangar_gateway_request_duration_seconds{operation, status}` (its `_count` is the request count),
 * with each route's cells resolved when first used and kept by route and status: a request costs
 * two map lookups and a bucket search, no label strings built.
 */
export function createGatewayMetrics(routes: readonly Route[]): GatewayMetrics {
  const duration = createHistogram({
    name: "hangar_gateway_request_duration_seconds",
    help: "Time the gateway took to answer a request, by operation (Service.Method) and HTTP status.",
    labelNames: ["operation", "status"],
  });
  const byRoute = new Map<Route | undefined, { operation: string; byStatus: Map<number, HistogramCell> }>(
    // A call rerouted for an older API version is counted under the operation that served it.
    routes.flatMap(withRerouteTwins).map((route) => [route, { operation: `${route.service.name}.${route.method.name}`, byStatus: new Map() }]),
  );
  byRoute.set(undefined, { operation: UNROUTED, byStatus: new Map() });
  return {
    served(route, status, seconds) {
      const cells = byRoute.get(route) ?? byRoute.get(undefined)!;
      let cell = cells.byStatus.get(status);
      if (!cell) {
        cell = duration.cell(cells.operation, String(status));
        cells.byStatus.set(status, cell);
      }
      cell.observe(seconds);
    },
  };
}

/** Codes that mean the upstream failed (rather than answered the request with an outcome such as NotFound). */
const FAILURES = new Set<Code>([Code.Unavailable, Code.DeadlineExceeded, Code.Internal, Code.Unknown, Code.DataLoss]);

/**
 * The clients, counting in `hangar_gateway_upstream_errors_total{service, code}` the calls that failed
 * for the upstream's sake: unreachable, past the deadline, or an internal error.
 */
export function countUpstreamErrors(upstreams: Map<string, GrpcUnaryClient>): Map<string, GrpcUnaryClient> {
  const errors = createCounter({
    name: "hangar_gateway_upstream_errors_total",
    help: "Calls from the gateway to a service that failed: unavailable, deadline exceeded, internal or unknown errors.",
    labelNames: ["service", "code"],
  });
  const counted = new Map<string, GrpcUnaryClient>();
  for (const [service, client] of upstreams) {
    const count = (error: unknown) => {
      const code = error instanceof ConnectError ? error.code : Code.Unknown;
      if (FAILURES.has(code)) errors.cell(service, Code[code]).inc();
      throw error;
    };
    counted.set(service, { call: (method, input, options) => client.call(method, input, options).catch(count), close: () => client.close() });
  }
  return counted;
}

/** `GET /metrics`: the process's metrics as Prometheus text (in the embedded platform, the services' too). */
export async function answerMetrics(res: ServerResponse): Promise<void> {
  const text = await renderMetrics();
  res.writeHead(200, { "content-type": METRICS_CONTENT_TYPE, "content-length": Buffer.byteLength(text) });
  res.end(text);
}
