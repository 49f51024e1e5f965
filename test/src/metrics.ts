/** One sample of a Prometheus text exposition: metric name, labels and value. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Scrapes `url` (a `/metrics` endpoint, no token) and parses its samples; fails unless it answers 200 in Prometheus text format. */
export async function scrape(url: string): Promise<MetricSample[]> {
  const res = await fetch(url);
  const text = await res.text();
  if (res.status !== 200 || !res.headers.get("content-type")?.startsWith("text/plain; version=0.0.4")) {
    throw new Error(`${url}: ${res.status} ${res.headers.get("content-type")}: ${text.slice(0, 200)}`);
  }
  return parseMetrics(text);
}

/** Parses Prometheus text format (what prom-client writes: no escaped quotes in our label values). */
export function parseMetrics(text: string): MetricSample[] {
  return text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none, an error when several. */
export function sampleValue(samples: MetricSample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
