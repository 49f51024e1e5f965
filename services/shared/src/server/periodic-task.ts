import type { Logger } from "../telemetry";

/** A background loop of a service (sweeps, clean-ups). */
export interface PeriodicTask {
  /**
   * Runs the task now instead of at the end of the interval (work just became due, such as a
   * deletion to clean up after). During a run, the next run starts as soon as it ends.
   */
  wake(): void;
  /** Stops the loop, waiting for a run in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every `intervalMs` (measured from the end of the previous run, so runs never overlap)
 * until stopped. A failed run is logged and the loop goes on; `run` returns how many things it
 * changed, logged when nonzero.
 */
export function startPeriodicTask(options: { name: string; intervalMs: number; run: () => Promise<number>; logger: Logger }): PeriodicTask {
  let stopped = false;
  let busy = false;
  let wokenWhileBusy = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    busy = true;
    running = options
      .run()
      .then((changed) => {
        if (changed > 0) options.logger.info({ task: options.name, changed }, `${options.name} changed ${changed}`);
      })
      .catch((error: unknown) => options.logger.error({ err: error, task: options.name }, `${options.name} failed`))
      .finally(() => {
        busy = false;
        if (!stopped) timer = setTimeout(tick, wokenWhileBusy ? 0 : options.intervalMs);
        wokenWhileBusy = false;
      });
  };
  timer = setTimeout(tick, options.intervalMs);
  return {
    wake() {
      if (stopped) return;
      if (busy) {
        wokenWhileBusy = true;
        return;
      }
      clearTimeout(timer);
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
