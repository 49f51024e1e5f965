import pino, { type Logger } from "pino";

export type { Logger };

/** Creates the structured JSON logger of a process; one per process, children per component. */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({ name, level, base: { service: name } });
}
