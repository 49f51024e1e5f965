import { collectDefaultMetrics, Registry } from "prom-client";

let registry: Registry | undefined;

/**
 * The process's one metrics registry (prom-client's), with prom-client's standard process metrics
 * (CPU, memory, event-loop delay, GC). One per process, whatever runs in it: the gateway, a
 * service, or all of them in the embedded platform.
 */
export function metricsRegistry(): Registry {
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
  }
  return registry;
}

/** The content type of `renderMetrics`' text (Prometheus text format 0.0.4). */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** Every metric of the process as Prometheus text, sampling the scrape-time gauges. */
export function renderMetrics(): Promise<string> {
  return metricsRegistry().metrics();
}
