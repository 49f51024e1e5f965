import { NodeSDK } from "@opentelemetry/sdk-node";
import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import { context, propagation, trace, type Context, type Tracer } from "@opentelemetry/api";

let sdk: NodeSDK | undefined;

/**
 * Initialises OpenTelemetry once per process. Exporters follow the standard `OTEL_*` variables
 * (for example `OTEL_TRACES_EXPORTER=otlp` with `OTEL_EXPORTER_OTLP_ENDPOINT`); tests pass their
 * own span processors. The W3C trace-context propagator carries traces across RPC and Kafka hops.
 */
export function initTelemetry(serviceName: string, spanProcessors?: SpanProcessor[]): void {
  if (sdk) return;
  const exporterConfigured = process.env.OTEL_TRACES_EXPORTER !== undefined;
  if (!exporterConfigured && !spanProcessors) process.env.OTEL_TRACES_EXPORTER = "none";
  sdk = new NodeSDK({ serviceName, ...(spanProcessors ? { spanProcessors } : {}), instrumentations: [] });
  sdk.start();
}

/** Flushes and stops telemetry (at shutdown). */
export async function shutdownTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}

/** The platform's tracer. */
export function tracer(): Tracer {
  return trace.getTracer("hangar");
}

/** Writes the active trace context into a carrier (RPC or Kafka headers). */
export function injectTraceContext(carrier: Record<string, string>, ctx: Context = context.active()): void {
  propagation.inject(ctx, carrier);
}

/** Reads a trace context from a carrier written by `injectTraceContext`. */
export function extractTraceContext(carrier: Record<string, string | undefined>): Context {
  return propagation.extract(context.active(), carrier);
}
