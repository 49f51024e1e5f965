// Measurement loops shared by the benchmarks: one request at a time, whole results page by page, memory.
import { setTimeout as sleep } from "node:timers/promises";
import { memorySnapshot, percentile } from "./lib.mjs";
import { sized } from "./report.mjs";

/**
 * Runs `call` `count` times one after the other, after a warm-up of up to 10 calls; resolves the
 * p50 and p99 latency (ms) and the mean number of `items` in the answers.
 */
export async function sequential(call, count) {
  for (let i = 0; i < Math.min(10, count); i++) await call();
  const latencies = [];
  let items = 0;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const body = await call();
    latencies.push(performance.now() - started);
    items += Array.isArray(body.data?.items) ? body.data.items.length : 0;
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), items: items / count };
}

/**
 * Follows `next_token` from the first page of `query(after)` to the last (or `maxPages`); resolves
 * the pages read, the rows they held, the whole walk's ms and the median latency of the first five
 * and of the last five pages: with keyset tokens a deep page costs what the first does.
 */
export async function walkPages(query, maxPages = Infinity) {
  const latencies = [];
  let rows = 0;
  let after;
  const started = performance.now();
  do {
    const pageStarted = performance.now();
    const page = (await query(after)).data;
    latencies.push(performance.now() - pageStarted);
    rows += page.items.length;
    after = page.next_token || undefined;
  } while (after && latencies.length < maxPages);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { pages: latencies.length, rows, ms: performance.now() - started, first: median(latencies.slice(0, 5)), last: median(latencies.slice(-5)) };
}

/** How long the platform is left alone before its memory is read again (BENCH_QUIET_MS; one minute). */
const QUIET_MS = Number(process.env.BENCH_QUIET_MS ?? sized(60_000, 5_000));

/**
 * Adds the platform's memory after the load and after a quiet minute to `report`, against the idle
 * figure `idle` (a `memorySnapshot` taken before the load): memory that the load took should come
 * back, so the goal after the quiet minute is at most 1.5 times the idle resident set. `leftover`,
 * for a load that leaves the platform work of its own once the requests stop (compute: the
 * runner's queue), is `{ what, stop }`: the minute after the requests is then reported as context
 * (`what` says what still runs), `stop()` ends that work, and the goal applies to the minute after.
 */
export async function reportMemoryAfterLoad(report, platformPid, idle, leftover) {
  const loaded = memorySnapshot(platformPid);
  report.add("platform RSS, idle after start", idle.platformRss, "MiB");
  report.add("platform RSS, right after the load", loaded.platformRss, "MiB");
  await sleep(QUIET_MS);
  let quiet = memorySnapshot(platformPid);
  let label = `platform RSS, after ${QUIET_MS / 1000} s without requests`;
  if (leftover) {
    report.add(`platform RSS, after ${QUIET_MS / 1000} s without client requests, ${leftover.what}`, quiet.platformRss, "MiB");
    await leftover.stop();
    await sleep(QUIET_MS);
    quiet = memorySnapshot(platformPid);
    label = `platform RSS, ${QUIET_MS / 1000} s after that work ended`;
  }
  report.add(label, quiet.platformRss, "MiB", { goal: { max: 1.5 * idle.platformRss } });
  report.add(`its PostgreSQL's processes, proportional set (Pss), idle / after ${QUIET_MS / 1000} s quiet`, quiet.postgresPss, "MiB", { anchor: { name: "idle", value: idle.postgresPss } });
}
