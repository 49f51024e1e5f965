import { getOption } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { limits } from "@hangar/shared/proto/common";
import { RunnerLogEntrySchema } from "@hangar/shared/proto/compute";
import type { ComputeClient } from "./compute-client";

/** Where a log line comes from: the action, or the runner preparing it or handling its outputs. */
export type LogProcess = "action" | "setup" | "output_handler";

/** Buffers an invocation's log lines and sends them in batches under its lease. */
export interface LogSink {
  write(process: LogProcess, line: string): void;
  /** Sends what is buffered; resolves once it has been sent (or dropped, see `onError`). */
  flush(): Promise<void>;
  /** Flushes and stops the periodic flushing. */
  close(): Promise<void>;
}

/** Options of `createLogSink`. */
export interface LogSinkOptions {
  compute: ComputeClient;
  leaseId: string;
  /** How often buffered lines go out; default 500 ms. */
  flushIntervalMs?: number;
  /** Lines that could not be sent (the lease is gone): they are dropped, and this hears why. */
  onError(error: unknown): void;
}

/** Most lines in one AppendLogs call. */
const MAX_BATCH = 500;

/**
 * The longest line AppendLogs takes, as RunnerLogEntry.log declares it; a longer line (an action
 * may print anything) is cut to it, so that it cannot get its whole batch refused.
 */
const MAX_LINE_CHARS = getOption(RunnerLogEntrySchema.field.log, limits).maxLen;

/** Creates a log sink that sends lines in order, one batch at a time. */
export function createLogSink(options: LogSinkOptions): LogSink {
  let buffer: { process: LogProcess; log: string; timestamp: Date }[] = [];
  let sending: Promise<void> = Promise.resolve();
  const sendBuffered = async () => {
    while (buffer.length > 0) {
      const batch = buffer.slice(0, MAX_BATCH);
      buffer = buffer.slice(MAX_BATCH);
      const entries = batch.map((line) => ({ process: line.process, log: line.log, timestamp: timestampFromDate(line.timestamp) }));
      await options.compute.appendLogs({ leaseId: options.leaseId, entries }).catch(options.onError);
    }
  };
  const flush = () => (sending = sending.then(sendBuffered));
  const timer = setInterval(() => void flush(), options.flushIntervalMs ?? 500);
  return {
    write(process, line) {
      buffer.push({ process, log: line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line, timestamp: new Date() });
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
