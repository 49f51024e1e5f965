import type { ComputeClient } from "./compute-client";
import { createLogSink } from "./log-sink";

test("a line longer than RunnerLogEntry.log's declared 65,536 characters is cut to it, and its batch still goes out", async () => {
  const sent: string[][] = [];
  const compute = { appendLogs: async (req: { entries: { log: string }[] }) => void sent.push(req.entries.map((e) => e.log)) } as unknown as ComputeClient;
  const sink = createLogSink({ compute, leaseId: "lease", flushIntervalMs: 60_000, onError: (error) => { throw error; } });
  sink.write("action", "short");
  sink.write("action", "x".repeat(200_000));
  await sink.close();
  expect(sent).toEqual([["short", "x".repeat(65_536)]]);
});
