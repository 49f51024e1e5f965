import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

/** A PostgreSQL server of one test file's own, which the test may stop and start (an outage). */
export interface OwnPostgres {
  /** URL of its `hangar` database. */
  url: string;
  /** Stops the server (fast shutdown: open connections are terminated), keeping its data and port. */
  halt(): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
  /** Stops it and removes its data. */
  stop(): Promise<void>;
}

const HARNESS = path.resolve(__dirname, "postgres.mjs");

// Runs the harness's startPostgres() in a Node child (jest's CommonJS runtime cannot import the ESM
// harness): prints the URL as one JSON line, then obeys `halt` and `resume` lines on stdin, answering
// each with a line; stops the server when its stdin closes (on stop(), or when this worker dies).
const CHILD = `const { startPostgres } = await import(process.argv[1]);
const pg = await startPostgres();
const say = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
say({ url: pg.url });
const lines = (await import("node:readline")).createInterface({ input: process.stdin });
lines.on("line", (command) => void pg[command]().then(() => say({ done: command }), (error) => say({ error: String(error) })));
lines.on("close", () => void pg.stop().then(() => process.exit(0)));`;

/**
 * Starts a PostgreSQL server for the calling test alone (test/src/postgres.mjs in a child process),
 * for tests that stop the database under a running platform, which the shared server must never be.
 */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD, HARNESS], { stdio: ["pipe", "pipe", "inherit"] });
  const answers = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, string>> => {
    const line = await answers.next();
    if (line.done) throw new Error("the PostgreSQL test server's process ended");
    const answer = JSON.parse(line.value) as Record<string, string>;
    if (answer.error) throw new Error(answer.error);
    return answer;
  };
  const command = async (name: "halt" | "resume") => {
    child.stdin!.write(`${name}\n`);
    await next();
  };
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const { url } = await next();
  return {
    url: url!,
    halt: () => command("halt"),
    resume: () => command("resume"),
    async stop() {
      child.stdin!.end();
      await exited;
    },
  };
}
