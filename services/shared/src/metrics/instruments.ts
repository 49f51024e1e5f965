import { metricsRegistry } from "./registry";

/** One sample as prom-client's registry renders it: `metricName` for a histogram's `_bucket`, `_sum`, `_count`. */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** The Prometheus type of a family. */
type FamilyType = "counter" | "gauge" | "histogram";

/** A counter's cell for one set of label values, resolved once and kept by the caller. */
export interface CounterCell {
  inc(by?: number): void;
}

/** A histogram's cell for one set of label values, resolved once and kept by the caller. */
export interface HistogramCell {
  observe(value: number): void;
}

/** A metric family whose cells are looked up by label values (in `labelNames` order). */
export interface Family<Cell> {
  /** The cell of these label values, created on first use. Resolve it outside the hot path. */
  cell(...values: string[]): Cell;
}

/** Options of a metric family. */
export interface FamilyOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
}

/** Latency buckets in seconds: from a cached read (1 ms) to the gateway's upstream deadline (30 s). */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * A counter registered in the process registry. Unlike prom-client's own `labels(...).inc()`, which
 * hashes the label values on every call, a cell is a plain number updated in place: the gateway's
 * and the services' per-request cost is one addition.
 */
export function createCounter(options: FamilyOptions): Family<CounterCell> {
  return registerFamily(options, "counter", () => {
    const cell = { value: 0, inc: (by = 1) => void (cell.value += by) };
    return cell;
  }, (labels, cell) => [{ labels, value: cell.value }]);
}

/** A histogram registered in the process registry, with pre-resolved cells (see `createCounter`). */
export function createHistogram(options: FamilyOptions & { buckets?: readonly number[] }): Family<HistogramCell> {
  const bounds = options.buckets ?? LATENCY_BUCKETS;
  return registerFamily(
    options,
    "histogram",
    () => {
      const cell = {
        counts: new Float64Array(bounds.length),
        sum: 0,
        count: 0,
        observe(value: number) {
          cell.sum += value;
          cell.count++;
          for (let i = 0; i < bounds.length; i++) {
            if (value <= bounds[i]!) {
              cell.counts[i]!++;
              return;
            }
          }
        },
      };
      return cell;
    },
    (labels, cell) => {
      let cumulative = 0;
      const values: Sample[] = bounds.map((bound, i) => {
        cumulative += cell.counts[i]!;
        return { metricName: `${options.name}_bucket`, labels: { ...labels, le: bound }, value: cumulative };
      });
      values.push({ metricName: `${options.name}_bucket`, labels: { ...labels, le: "+Inf" }, value: cell.count });
      values.push({ metricName: `${options.name}_sum`, labels, value: cell.sum }, { metricName: `${options.name}_count`, labels, value: cell.count });
      return values;
    },
  );
}

/** Samples of a scrape-time gauge: read when Prometheus scrapes, never on a request's path. */
export type GaugeSource = () => Promise<number | Map<string, number>>;

/** A gauge family whose values are read at scrape time from the sources that running components add. */
export interface SampledGauge {
  /**
   * Adds a source for these label values (in `labelNames` order; with a map-valued source, all but
   * the last, which the map's keys fill). Returns its removal, for a component that stops.
   */
  source(values: readonly string[], read: GaugeSource): () => void;
}

/** How long a scrape waits for one source (a query, a Kafka admin call) before leaving its value out. */
const SAMPLE_TIMEOUT_MS = 2_000;

/**
 * A gauge sampled at scrape time, such as an outbox's age or a consumer's lag. A source that fails
 * or takes longer than 2 s is left out of that scrape (its absence is what an alert sees), so a
 * database or broker outage never makes `/metrics` fail or hang. Registered again under the same
 * name, it is the family already there.
 */
export function createSampledGauge(options: FamilyOptions): SampledGauge {
  const existing = metricsRegistry().getSingleMetric(options.name) as unknown as { family?: SampledGauge } | undefined;
  if (existing?.family) return existing.family;
  const sources = new Set<{ values: readonly string[]; read: GaugeSource }>();
  const get = async () => {
    const samples = await Promise.all([...sources].map((source) => sample(options.labelNames, source.values, source.read)));
    return { name: options.name, help: options.help, type: "gauge" as FamilyType, values: samples.flat(), aggregator: "sum" as const };
  };
  const family: SampledGauge = {
    source(values, read) {
      const entry = { values, read };
      sources.add(entry);
      return () => void sources.delete(entry);
    },
  };
  metricsRegistry().registerMetric({ name: options.name, get, family } as never);
  return family;
}

async function sample(labelNames: readonly string[], values: readonly string[], read: GaugeSource): Promise<Sample[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), SAMPLE_TIMEOUT_MS)));
  try {
    const value = await Promise.race([read(), timeout]);
    if (value === undefined) return [];
    if (typeof value === "number") return [{ labels: labelsOf(labelNames, values), value }];
    return [...value].map(([key, v]) => ({ labels: labelsOf(labelNames, [...values, key]), value: v }));
  } catch {
    return [];
  } finally {
    clearTimeout(timer);
  }
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name, i) => [name, values[i] ?? ""]));
}

/**
 * Registers a family of cells whose values `render` turns into prom-client's values at scrape time.
 * A family of the same name registered again (a second platform in one process, as tests start)
 * is the one already there, so cells keep counting across restarts as a process's counters should.
 */
function registerFamily<Cell>(
  options: FamilyOptions,
  type: FamilyType,
  newCell: () => Cell,
  render: (labels: Record<string, string>, cell: Cell) => Sample[],
): Family<Cell> {
  const registry = metricsRegistry();
  const existing = registry.getSingleMetric(options.name) as unknown as { family?: Family<Cell> } | undefined;
  if (existing?.family) return existing.family;
  const cells = new Map<string, { labels: Record<string, string>; cell: Cell }>();
  const family: Family<Cell> = {
    cell(...values) {
      const key = values.join("\u0000");
      let entry = cells.get(key);
      if (!entry) {
        entry = { labels: labelsOf(options.labelNames, values), cell: newCell() };
        cells.set(key, entry);
      }
      return entry.cell;
    },
  };
  const get = async () => ({
    name: options.name,
    help: options.help,
    type,
    values: [...cells.values()].flatMap(({ labels, cell }) => render(labels, cell)),
    aggregator: "sum" as const,
  });
  registry.registerMetric({ name: options.name, get, family } as never);
  return family;
}
