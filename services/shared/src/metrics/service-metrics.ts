import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { createCounter, createHistogram, createSampledGauge, type CounterCell, type HistogramCell, type SampledGauge } from "./instruments";

/** The services' metric families, created on first use (a process that serves no RPC registers none). */
let families:
  | { handled: ReturnType<typeof createCounter>; duration: ReturnType<typeof createHistogram>; outboxPending: SampledGauge; outboxLag: SampledGauge; consumerLag: SampledGauge; custom: Map<string, SampledGauge> }
  | undefined;

function serviceFamilies() {
  families ??= {
    handled: createCounter({ name: "hangar_rpc_server_handled_total", help: "RPCs a service finished, by service, method and gRPC code.", labelNames: ["service", "method", "code"] }),
    duration: createHistogram({ name: "hangar_rpc_server_duration_seconds", help: "Time a service took for an RPC, by service and method.", labelNames: ["service", "method"] }),
    outboxPending: createSampledGauge({ name: "hangar_outbox_pending_events", help: "Events in a service's outbox not yet published.", labelNames: ["service"] }),
    outboxLag: createSampledGauge({ name: "hangar_outbox_lag_seconds", help: "Age of the oldest unpublished event in a service's outbox (0 when none).", labelNames: ["service"] }),
    consumerLag: createSampledGauge({
      name: "hangar_consumer_lag_messages",
      help: "Messages of a topic a service's consumer group has yet to commit (Kafka).",
      labelNames: ["service", "consumer", "topic"],
    }),
    custom: new Map(),
  };
  return families;
}

/** Cells of one method, resolved on its first call; codes indexed by their number. */
interface MethodCells {
  duration: HistogramCell;
  codes: (CounterCell | undefined)[];
  labels: [string, string];
}

/**
 * The interceptor that counts every RPC by method and gRPC code and times it, outermost so that
 * every outcome is seen, on both the fast gRPC path and Connect's. Cells are resolved once per
 * method: a call costs two clock reads, a map lookup and two additions.
 */
export function measureCalls(service: string): Interceptor {
  const { handled, duration } = serviceFamilies();
  const byMethod = new Map<DescMethod, MethodCells>();
  const cellsOf = (method: DescMethod): MethodCells => {
    let cells = byMethod.get(method);
    if (!cells) {
      cells = { duration: duration.cell(service, method.name), codes: [], labels: [service, method.name] };
      byMethod.set(method, cells);
    }
    return cells;
  };
  /** `code` is a gRPC status code: 0 (OK) or a ConnectError's. */
  const count = (cells: MethodCells, code: number) => (cells.codes[code] ??= handled.cell(...cells.labels, code === 0 ? "OK" : Code[code as Code])).inc();
  return (next) => async (req) => {
    const started = performance.now();
    const cells = cellsOf(req.method);
    try {
      const response = await next(req);
      count(cells, 0);
      return response;
    } catch (error) {
      count(cells, error instanceof ConnectError ? error.code : Code.Unknown);
      throw error;
    } finally {
      cells.duration.observe((performance.now() - started) / 1000);
    }
  };
}

/** What a service's gauges read at scrape time. */
export interface ServiceGaugeSources {
  service: string;
  /** Unpublished outbox events: how many, and the oldest one's age in seconds (0 when none). */
  outbox(): Promise<{ pending: number; lagSeconds: number }>;
  /** Each consumer's lag by topic, where the transport measures it. */
  consumers: { name: string; lag: () => Promise<Map<string, number>> }[];
}

/** A gauge of a service's own, such as the compute service's runner queue depth. */
export interface ServiceGauge {
  /** Full metric name (`hangar_runner_queue_depth`); labelled with `service`. */
  name: string;
  help: string;
  read(): Promise<number>;
}

/** Adds a running service's scrape-time gauges; returns their removal, for its close. */
export function addServiceGauges(sources: ServiceGaugeSources, own: readonly ServiceGauge[] = []): () => void {
  const f = serviceFamilies();
  const outbox = () => sources.outbox();
  const removals = [
    f.outboxPending.source([sources.service], async () => (await outbox()).pending),
    f.outboxLag.source([sources.service], async () => (await outbox()).lagSeconds),
    ...sources.consumers.map((consumer) => f.consumerLag.source([sources.service, consumer.name], consumer.lag)),
    ...own.map((gauge) => customGauge(gauge).source([sources.service], () => gauge.read())),
  ];
  return () => removals.forEach((remove) => remove());
}

function customGauge(gauge: ServiceGauge): SampledGauge {
  const { custom } = serviceFamilies();
  let family = custom.get(gauge.name);
  if (!family) {
    family = createSampledGauge({ name: gauge.name, help: gauge.help, labelNames: ["service"] });
    custom.set(gauge.name, family);
  }
  return family;
}
