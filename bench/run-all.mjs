// `npm run bench`: every benchmark in sequence on the same machine, then one summary table of the
// figures that have a goal. BENCH_QUICK=1 runs them all at smoke-test sizes; BENCH_ONLY=files,compute
// runs some. The A/B comparisons (grpc-clients, unary-fast-path) and kafka-recovery, which start
// servers of their own and take minutes, stay separate scripts (`npm run bench:<name>`).
import "./pinned-node.mjs";
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadAverage, markdownTable } from "./report.mjs";

const BENCHES = ["gateway-overhead", "files", "upload-begin", "compute", "comments", "topics", "mcap-ingest", "scheduled-triggers", "metrics", "search"];
const only = process.env.BENCH_ONLY?.split(",");
const results = path.join(tmpdir(), `hangar-bench-results-${process.pid}.jsonl`);
const ran = [];
for (const name of BENCHES.filter((bench) => !only || only.includes(bench))) {
  console.log(`\n=== ${name} (load average ${loadAverage()}) ===`);
  const started = performance.now();
  const code = await run(`bench/${name}.mjs`);
  ran.push({ name, code, minutes: (performance.now() - started) / 60_000 });
}
printSummary();

/** Runs one benchmark script with this process's Node, its figures appended to `results`. */
function run(script) {
  const child = spawn(process.execPath, [script], { stdio: "inherit", env: { ...process.env, BENCH_RESULTS: results } });
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
}

function printSummary() {
  let rows = [];
  try {
    rows = readFileSync(results, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
  } catch {
    // no benchmark reported a figure
  }
  rmSync(results, { force: true });
  console.log("\n=== summary: every figure with a goal ===\n");
  for (const { name, code, minutes } of ran) {
    const own = rows.filter((row) => row.bench === name);
    const status = code === 0 ? "" : `, exited with ${code}`;
    const load = own[0] ? `load average ${own[0].load}` : "no figures reported here (see its own output above)";
    console.log(`- ${name}: ${minutes.toFixed(1)} min${status}; ${load}`);
  }
  const graded = rows.filter((row) => row.goal).map((row) => ({ ...row, figure: `${row.bench}: ${row.figure}` }));
  console.log(`\n${markdownTable(graded)}\n`);
  const failed = graded.filter((row) => !row.pass).length;
  console.log(`${graded.length - failed} PASS, ${failed} FAIL${ran.some((bench) => bench.code !== 0) ? "; a benchmark did not finish" : ""}`);
}
