import type { ServerResponse } from "node:http";
import { Code, ConnectError } from "@connectrpc/connect";
import { writeError } from "./errors";

/** The status and parsed body writeError sends. */
function written(error: unknown): { status: number; body: { error: { message: string } } } {
  let status = 0;
  let text = "";
  const res = { headersSent: false, writeHead: (s: number) => void (status = s), end: (b: string) => void (text = b) } as unknown as ServerResponse;
  writeError(res, error, false);
  return { status, body: JSON.parse(text) };
}

test("the envelope's message is cut to 1,024 characters, whatever raised it", () => {
  const { status, body } = written(new ConnectError(`field: ${"v".repeat(1 << 20)}`, Code.InvalidArgument));
  expect(status).toBe(400);
  expect(body.error.message).toBe(`field: ${"v".repeat(1014)}...`);
});
