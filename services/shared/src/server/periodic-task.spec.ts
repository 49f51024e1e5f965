import { createLogger } from "../telemetry";
import { startPeriodicTask } from "./periodic-task";

const logger = createLogger("periodic-task-spec", "silent");
/** An interval no test waits out: every run below is one that wake() asked for. */
const NEVER = 3_600_000;

/** A run the test ends by hand, and a promise of each run's start. */
function controlledRuns() {
  const starts: Array<() => void> = [];
  const ends: Array<() => void> = [];
  let started = 0;
  const nextStart = () => new Promise<void>((resolve) => starts.push(resolve));
  const run = () =>
    new Promise<number>((resolve) => {
      started += 1;
      starts.shift()?.();
      ends.push(() => resolve(0));
    });
  return { run, nextStart, endRun: () => ends.shift()!(), started: () => started };
}

describe("startPeriodicTask", () => {
  it("wake runs the task at once instead of after the interval", async () => {
    const runs = controlledRuns();
    const task = startPeriodicTask({ name: "t", intervalMs: NEVER, run: runs.run, logger });
    expect(runs.started()).toBe(0);
    task.wake();
    expect(runs.started()).toBe(1);
    runs.endRun();
    await task.stop();
  });

  it("a wake during a run starts the next run as soon as that one ends, once however many wakes came", async () => {
    const runs = controlledRuns();
    const task = startPeriodicTask({ name: "t", intervalMs: NEVER, run: runs.run, logger });
    task.wake();
    task.wake();
    task.wake();
    expect(runs.started()).toBe(1);
    const second = runs.nextStart();
    runs.endRun();
    await second;
    expect(runs.started()).toBe(2);
    runs.endRun();
    await task.stop();
    expect(runs.started()).toBe(2);
  });

  it("wake after stop runs nothing", async () => {
    const runs = controlledRuns();
    const task = startPeriodicTask({ name: "t", intervalMs: NEVER, run: runs.run, logger });
    await task.stop();
    task.wake();
    expect(runs.started()).toBe(0);
  });
});
