// Microbenchmark: the shared library's formatIsoTimestamp (services/shared/src/wire) against
// `Date.prototype.toISOString`, whose text it reproduces, so the choice of a hand-written format can
// be re-run. Run with `npm run build && npm run bench:iso-timestamp`; a few seconds.
//
// Two workloads of 1,400 timestamps (a page of 100 topics, bench:topics): a page's instants within
// a few days (as records written together are), and every instant on a different day (the formatter's
// per-day cache misses each time: its worst case). ns per timestamp, best of BENCH_RUNS runs; the
// goal is at most half of toISOString's time on the page, toISOString the anchor of the same run.
import "./pinned-node.mjs";
import { createRequire } from "node:module";
import { createReport } from "./report.mjs";

const require = createRequire(import.meta.url);
const { formatIsoTimestamp } = require("../services/shared/dist/index.js");

const PAGE = 1_400;
const ROUNDS = 2_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const DAY = 86_400_000;
const start = Date.UTC(2026, 10, 21, 7, 16, 15, 123);

/** Days the miss workload cycles through: more than the formatter caches, so none is found again. */
const MISS_DAYS = 10_000;
const workloads = [
  { name: "a page's 1,400 timestamps within 3 days", instantAt: (round, i) => start + ((i * 7_919_123) % (3 * DAY)) },
  { name: "1,400 timestamps each on another day (cache misses)", instantAt: (round, i) => start - ((round * PAGE + i) % MISS_DAYS) * DAY - i },
];

const report = createReport("iso-timestamp");
for (const { name, instantAt } of workloads) {
  const instants = Array.from({ length: ROUNDS }, (_, round) => Array.from({ length: PAGE }, (_, i) => instantAt(round, i)));
  const anchor = nsPerTimestamp(instants, (ms) => new Date(ms).toISOString());
  const formatted = nsPerTimestamp(instants, formatIsoTimestamp);
  report.add(`${name}: Date.toISOString`, anchor, "ns");
  const isPage = name.startsWith("a page");
  report.add(`${name}: formatIsoTimestamp`, formatted, "ns", { anchor: { name: "toISOString", value: anchor }, ...(isPage ? { goal: { max: anchor / 2 } } : {}) });
}
report.print();

/** ns per timestamp of `format` over the rounds of `instants`, best of RUNS runs (the text's length is kept so none is optimized away). */
function nsPerTimestamp(instants, format) {
  let best = Infinity;
  let sink = 0;
  for (let run = 0; run < RUNS; run++) {
    const started = process.hrtime.bigint();
    for (const page of instants) for (let i = 0; i < page.length; i++) sink += format(page[i]).length;
    best = Math.min(best, Number(process.hrtime.bigint() - started) / (ROUNDS * PAGE));
  }
  if (sink === 0) throw new Error("nothing formatted");
  return best;
}
