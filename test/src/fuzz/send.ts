import http from "node:http";
import type { FuzzCase } from "./cases";

/** Options of `sendFuzzCases`. */
export interface SendOptions {
  /** The gateway, `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** Sent with every request (authorization, org). */
  readonly headers: Record<string, string>;
  /** Requests in flight at once; default 8. */
  readonly concurrency?: number;
  /** A request unanswered after this long is a hang; default 10 s. */
  readonly timeoutMs?: number;
}

/** What came back for one case: a status and body, or no answer (`hang`, or a connection error's code). */
export interface FuzzOutcome {
  readonly fuzzCase: FuzzCase;
  readonly status?: number;
  readonly body?: string;
  readonly failure?: string;
  /** How long the exchange took, for finding slow operations (never asserted on). */
  readonly elapsedMs: number;
}

/**
 * Sends every case in order, `concurrency` at a time over kept-alive connections, with raw paths
 * and bodies (no client-side normalization of `..` or of bytes that are not UTF-8).
 */
export async function sendFuzzCases(cases: readonly FuzzCase[], options: SendOptions): Promise<FuzzOutcome[]> {
  const concurrency = options.concurrency ?? 8;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const outcomes: FuzzOutcome[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < cases.length; i = next++) outcomes[i] = await sendOne(cases[i]!, options, agent);
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return outcomes;
}

function sendOne(fuzzCase: FuzzCase, options: SendOptions, agent: http.Agent): Promise<FuzzOutcome> {
  const { method, path, body } = fuzzCase.request();
  const url = new URL(options.baseUrl);
  const started = performance.now();
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...options.headers };
    if (body !== undefined) Object.assign(headers, { "content-type": "application/json", "content-length": body.length });
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => done({ fuzzCase, status: res.statusCode, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (error) => done({ fuzzCase, failure: describeError(error) }));
    });
    // The whole exchange, not only socket idleness, must finish in time.
    const timer = setTimeout(() => req.destroy(new Error("hang")), options.timeoutMs ?? 10_000);
    const done = (outcome: Omit<FuzzOutcome, "elapsedMs">) => {
      clearTimeout(timer);
      resolve({ ...outcome, elapsedMs: performance.now() - started });
    };
    req.on("error", (error) => done({ fuzzCase, failure: describeError(error) }));
    req.end(body);
  });
}

function describeError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return error.message === "hang" ? "no answer within the timeout" : `connection failed: ${code ?? error.message}`;
}
