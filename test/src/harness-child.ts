import { spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { startTestPlatform, type TestPlatform } from "./platform";

/** A server of one test file's own, started by an ESM harness module in a child process. */
export interface HarnessServer<Info> {
  /** What the harness's start function returned, without its functions (URLs, brokers). */
  info: Info;
  /** Calls a function the harness returned (`halt`, `resume`) and waits for it. */
  call(name: string): Promise<void>;
  /** Stops the server (the harness's `stop`) and waits for the child to end. */
  stop(): Promise<void>;
}

// Runs a harness start function in a Node child (jest's CommonJS runtime cannot import the ESM
// harness): prints its result as one JSON line, then calls the functions named by lines on stdin,
// answering each with a line; stops the server when stdin closes (on stop(), or when this worker dies).
const CHILD = `const [file, name, options] = process.argv.slice(1);
const server = await (await import(file))[name](JSON.parse(options));
const say = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
say(server);
const lines = (await import("node:readline")).createInterface({ input: process.stdin });
lines.on("line", (command) => void server[command]().then(() => say({ done: command }), (error) => say({ error: String(error) })));
lines.on("close", () => void server.stop().then(() => process.exit(0)));`;

/**
 * Starts `start(options)` of the harness module `file` (under test/src) in a child process, for tests
 * that stop and start a server under a running platform, which the shared servers must never be.
 */
export async function startHarnessServer<Info>(file: string, start: string, options: Record<string, unknown> = {}): Promise<HarnessServer<Info>> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD, path.resolve(__dirname, file), start, JSON.stringify(options)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const answers = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await answers.next();
    if (line.done) throw new Error(`the test server of ${file} ended`);
    const answer = JSON.parse(line.value) as Record<string, unknown>;
    if (typeof answer.error === "string") throw new Error(answer.error);
    return answer;
  };
  const info = (await next()) as Info;
  return {
    info,
    async call(name) {
      child.stdin!.write(`${name}\n`);
      await next();
    },
    async stop() {
      child.stdin!.end();
      await exited;
    },
  };
}

/** A PostgreSQL server of the test's own (test/src/postgres.mjs): `halt` and `resume` stop and start it on the same port and data. */
export function startOwnPostgres(): Promise<HarnessServer<{ url: string }>> {
  return startHarnessServer("postgres.mjs", "startPostgres");
}

/** A platform and the PostgreSQL of its own that the test halts and resumes. */
export interface PlatformOnOwnPostgres {
  pg: HarnessServer<{ url: string }>;
  t: TestPlatform;
}

/**
 * Registers jest hooks that start a platform on a PostgreSQL of the test's own before the
 * enclosing block's tests and stop both after them; the returned object is filled in by then.
 */
export function platformOnOwnPostgres(): PlatformOnOwnPostgres {
  const started = {} as PlatformOnOwnPostgres;
  beforeAll(async () => {
    started.pg = await startOwnPostgres();
    started.t = await startTestPlatform({ databaseUrl: started.pg.info.url });
  });
  afterAll(async () => {
    await started.t?.close();
    await started.pg?.stop();
  });
  return started;
}

/** A Kafka broker of the test's own (test/src/kafka.mjs), on `port` when given. */
export function startOwnKafka(port?: number): Promise<HarnessServer<{ brokers: string }>> {
  return startHarnessServer("kafka.mjs", "startKafka", port === undefined ? {} : { port });
}

/**
 * A loopback port nothing listens on (yet): where a platform looks for a broker that
 * startOwnKafka(port) starts later. The global setup's `ports.mjs` has the same helper, but an ES
 * module cannot be imported from these CommonJS test files under jest.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: free } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return free;
}
