import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../telemetry";
import { METRICS_CONTENT_TYPE, renderMetrics } from "./registry";

/** A running metrics endpoint. */
export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (the process registry as Prometheus text) over HTTP/1.1 on a port of its
 * own. A service's RPC port speaks cleartext HTTP/2 only, which Prometheus does not scrape, so
 * services expose metrics beside it (`METRICS_PORT`, default 9464, the port OpenTelemetry's
 * Prometheus exporter uses). Anything else is a 404.
 */
export async function startMetricsServer(options: { port: number; host?: string; logger: Logger }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    renderMetrics().then(
      (text) => res.writeHead(200, { "content-type": METRICS_CONTENT_TYPE }).end(text),
      (error: unknown) => {
        options.logger.error({ err: error }, "rendering metrics failed");
        res.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  options.logger.info({ port }, "metrics listening");
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
