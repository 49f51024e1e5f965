import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A local HTTP endpoint that records every POST body (a stand-in for a Slack incoming webhook). */
export interface HttpSink {
  url: string;
  /** The JSON bodies received, in arrival order. */
  received: unknown[];
  /** Answer the next `count` requests with `status` instead of 200 (to exercise retries). */
  failNext(count: number, status: number): void;
  close(): Promise<void>;
}

/** Starts an HttpSink on a free loopback port; close it when done. */
export async function startHttpSink(): Promise<HttpSink> {
  const received: unknown[] = [];
  let failures: { count: number; status: number } = { count: 0, status: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (failures.count > 0) {
        failures.count -= 1;
        res.writeHead(failures.status).end();
        return;
      }
      received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    failNext: (count, status) => (failures = { count, status }),
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
