// The figures a benchmark reports: value, what it contains, ratio to an anchor of the same run, goal.
import { appendFileSync } from "node:fs";
import { loadavg } from "node:os";

/**
 * `BENCH_QUICK=1`: smaller sizes for a smoke run of the benchmark scripts (minutes, not tens of
 * minutes). Figures from a quick run do not show growth and are not the ones the README quotes.
 */
export const QUICK = process.env.BENCH_QUICK === "1";

/** `full` normally, `quick` under BENCH_QUICK=1. */
export function sized(full, quick) {
  return QUICK ? quick : full;
}

/** The machine's 1-minute load average, to print beside figures measured on a shared machine. */
export function loadAverage() {
  return loadavg()[0].toFixed(1);
}

/**
 * The figures of one benchmark run. `add(figure, value, unit, options)` records one: `goal` is
 * `{ max }` or `{ min }` (PASS/FAIL is printed against it; a figure without one is context),
 * `anchor` is `{ name, value }`, a figure of an anchor measured in the same run with the same
 * client, printed as the ratio value/anchor. `print()` prints the table with the load average at
 * the start and end of the run and, when `BENCH_RESULTS` names a file (as `npm run bench` does),
 * appends the rows there as JSON lines for the summary. `attempt(phase, run)` keeps a failed phase
 * from losing the others' figures.
 */
export function createReport(bench) {
  const rows = [];
  const loadAtStart = loadAverage();
  return {
    add(figure, value, unit, { goal, anchor } = {}) {
      rows.push({ bench, figure, value, unit, goal, anchor, pass: goal ? passes(value, goal) : undefined });
    },
    /**
     * Runs one phase of the benchmark; when it fails (a 5xx, a timeout), records a FAIL row naming
     * the phase and the error (its first 160 characters) and lets the run go on to the next phase.
     */
    async attempt(phase, run) {
      try {
        await run();
      } catch (error) {
        console.error(`${bench}: ${phase} failed:`, error);
        const message = String(error?.message ?? error).slice(0, 160).replaceAll("|", "/");
        rows.push({ bench, figure: `${phase}: FAILED (${message})`, value: NaN, unit: "", goal: { max: 0 }, pass: false });
      }
    },
    print() {
      const load = `${loadAtStart} at the start, ${loadAverage()} at the end`;
      console.log(`\n${bench}: figures (load average ${load}; 2-core machine)\n`);
      console.log(markdownTable(rows));
      if (process.env.BENCH_RESULTS) appendFileSync(process.env.BENCH_RESULTS, rows.map((row) => JSON.stringify({ ...row, load })).join("\n") + "\n");
    },
  };
}

function passes(value, goal) {
  if (!Number.isFinite(value)) return false;
  return goal.max !== undefined ? value <= goal.max : value >= goal.min;
}

/** Rows as a Markdown table: figure, value, ratio to its anchor, goal, PASS/FAIL. */
export function markdownTable(rows) {
  const lines = ["| figure | value | vs anchor | goal | result |", "|---|---|---|---|---|"];
  for (const row of rows) {
    const ratio = row.anchor ? `${formatNumber(row.value / row.anchor.value)}× ${row.anchor.name}` : "";
    const goal = row.goal ? `${row.goal.max !== undefined ? "≤" : "≥"} ${formatNumber(row.goal.max ?? row.goal.min)} ${row.unit}` : "";
    const result = row.pass === undefined ? "" : row.pass ? "PASS" : "FAIL";
    lines.push(`| ${row.figure} | ${formatNumber(row.value)} ${row.unit} | ${ratio} | ${goal} | ${result} |`);
  }
  return lines.join("\n");
}

/** A number with thousands separators and about three significant digits. */
export function formatNumber(value) {
  if (!Number.isFinite(value)) return String(value);
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
