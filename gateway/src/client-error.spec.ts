import net from "node:net";
import { createLogger } from "@hangar/shared";
import { startGateway, type Gateway } from "./gateway";

// Issue 9, finding 8: requests Node's HTTP parser refuses get a 4xx with the error envelope, never an
// empty body or a reset. Over raw sockets, so that exactly what goes on the wire is seen.

let gateway: Gateway;

beforeAll(async () => {
  // The upstreams are never reached: these requests are refused before routing.
  const nowhere = "http://127.0.0.1:1";
  gateway = await startGateway({
    port: 0,
    upstreams: { admin: nowhere, data: nowhere, compute: nowhere, assistant: nowhere, registry: nowhere },
    internalAuthSecret: "g".repeat(64),
    authCacheTtlMs: 0,
    development: false,
    logger: createLogger("test", "silent"),
  });
});
afterAll(() => gateway.close());

/** Sends `request` as is and resolves everything the gateway answered before closing; a reset fails. */
function exchange(request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(gateway.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString();
      const split = text.indexOf("\r\n\r\n");
      resolve({ status: Number(text.slice(9, 12)), headers: text.slice(0, split).toLowerCase(), body: text.slice(split + 4) });
      socket.destroy();
    });
    socket.write(request);
  });
}

test("a 20,000-character path segment is 431 with the error envelope", async () => {
  const answer = await exchange(`GET /v1/datasets/${"d".repeat(20_000)} HTTP/1.1\r\nhost: test\r\n\r\n`);
  expect(answer.status).toBe(431);
  expect(answer.headers).toContain("content-type: application/json");
  expect(JSON.parse(answer.body)).toEqual({ error: { error_code: 431, message: "the request line and headers exceed 16384 bytes", stack_trace: "" } });
});

test("a 1 MiB query string is 431 with the error envelope, not a connection reset", async () => {
  const answer = await exchange(`GET /v1/datasets/query?q=${"q".repeat(1024 * 1024)} HTTP/1.1\r\nhost: test\r\n\r\n`);
  expect(answer.status).toBe(431);
  expect(JSON.parse(answer.body).error.error_code).toBe(431);
});

test("headers past the limit are 431 with the error envelope", async () => {
  const answer = await exchange(`GET /v1/datasets/ds_1 HTTP/1.1\r\nhost: test\r\nx-filler: ${"h".repeat(20_000)}\r\n\r\n`);
  expect(answer.status).toBe(431);
  expect(JSON.parse(answer.body).error.error_code).toBe(431);
});

test("a malformed request line is 400 with the error envelope", async () => {
  const answer = await exchange("NOT AN HTTP REQUEST\r\n\r\n");
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toEqual({ error: { error_code: 400, message: "malformed HTTP request", stack_trace: "" } });
});

test("a long path under the limit is parsed and routed as usual", async () => {
  const answer = await exchange(`GET /v1/no-such-route/${"d".repeat(10_000)} HTTP/1.1\r\nhost: test\r\nconnection: close\r\n\r\n`);
  expect(answer.status).toBe(404);
  expect(JSON.parse(answer.body).error.error_code).toBe(404);
});

test("on a kept-alive connection that already served a request, a huge URL is still 431 with the envelope", async () => {
  const first = `GET /v1/no-such-route HTTP/1.1\r\nhost: test\r\n\r\n`;
  const second = `GET /v1/datasets/${"d".repeat(20_000)} HTTP/1.1\r\nhost: test\r\n\r\n`;
  const text = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(gateway.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      // The first answer is complete: only now send the second request on the same connection.
      if (chunks.length === 1) socket.write(second);
    });
    socket.on("end", () => resolve(Buffer.concat(chunks).toString()));
    socket.write(first);
  });
  const answers = text.split(/(?=HTTP\/1\.1 )/);
  expect(answers.map((answer) => Number(answer.slice(9, 12)))).toEqual([404, 431]);
  expect(JSON.parse(answers[1]!.slice(answers[1]!.indexOf("\r\n\r\n") + 4)).error.error_code).toBe(431);
});
