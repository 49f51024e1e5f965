import { spawn } from "node:child_process";
import path from "node:path";

/** An S3-compatible server the specs run against, with keys it accepts. */
export interface S3TestServer {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  stop(): Promise<void>;
}

const HARNESS = path.resolve(__dirname, "../../../../../test/src/s3.mjs");
const START_TIMEOUT_MS = 180_000; // the first run installs moto (about 30 s)

// Runs the harness's s3FromEnvOrStart() in a Node child (jest's CommonJS runtime cannot import the
// ESM harness), prints the server as one JSON line, and stops it when its stdin closes: on stop(),
// or when this worker dies.
const CHILD = `const { s3FromEnvOrStart } = await import(process.argv[1]);
const server = await s3FromEnvOrStart();
process.stdout.write(JSON.stringify(server) + "\\n");
process.stdin.resume();
process.stdin.on("end", () => server.stop().then(() => process.exit(0)));`;

/**
 * The server named by `HANGAR_TEST_S3_ENDPOINT` (set by jest's global setup; keys from
 * `HANGAR_TEST_S3_ACCESS_KEY_ID`, `_SECRET_ACCESS_KEY`, `_REGION`; stop does nothing), else a moto
 * server of this spec's own, started through test/src/s3.mjs; stop() ends it and waits for it.
 */
export async function startS3TestServer(): Promise<S3TestServer> {
  const env = process.env;
  if (env.HANGAR_TEST_S3_ENDPOINT) {
    return {
      endpoint: env.HANGAR_TEST_S3_ENDPOINT,
      accessKeyId: env.HANGAR_TEST_S3_ACCESS_KEY_ID || "hangar-test",
      secretAccessKey: env.HANGAR_TEST_S3_SECRET_ACCESS_KEY || "hangar-test-secret",
      region: env.HANGAR_TEST_S3_REGION || "us-east-1",
      stop: async () => {},
    };
  }
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD, HARNESS], { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const server = await new Promise<Omit<S3TestServer, "stop">>((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), START_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.includes("\n")) return;
      clearTimeout(timer);
      resolve(JSON.parse(stdout.slice(0, stdout.indexOf("\n"))) as Omit<S3TestServer, "stop">);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the S3 test server did not start:\n${stderr}`.trimEnd()));
    });
  });
  return {
    ...server,
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}
