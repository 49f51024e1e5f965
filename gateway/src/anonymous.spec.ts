import type { IncomingMessage, ServerResponse } from "node:http";
import { Code } from "@connectrpc/connect";
import { anonymousPrincipal, createAnonymousLimiter } from "./anonymous";

const response = () => {
  const headers: Record<string, string> = {};
  return { headers, res: { setHeader: (name: string, value: string) => void (headers[name] = value) } as unknown as ServerResponse };
};
const request = (host?: string) => ({ headers: host === undefined ? {} : { host } }) as IncomingMessage;

describe("createAnonymousLimiter", () => {
  test("admits the bound per operation and address in a minute, then 429 with the seconds left in the window", () => {
    let now = 60_000 * 100 + 15_000;
    const limit = createAnonymousLimiter(() => now);
    const { res, headers } = response();
    for (let i = 0; i < 3; i++) limit("POST /x", "a", 3, res);
    expect(() => limit("POST /x", "a", 3, res)).toThrow(expect.objectContaining({ code: Code.ResourceExhausted }));
    expect(headers["retry-after"]).toBe("45");
    limit("POST /x", "b", 3, res);
    limit("POST /y", "a", 3, res);
    now += 45_000;
    limit("POST /x", "a", 3, res);
  });

  test("keeps at most maxClients windows: beyond, it starts afresh rather than grow", () => {
    const limit = createAnonymousLimiter(() => 0, 2);
    const { res } = response();
    limit("k", "a", 1, res);
    limit("k", "b", 1, res);
    limit("k", "c", 1, res);
    limit("k", "a", 1, res);
  });
});

describe("anonymousPrincipal", () => {
  test.each([
    [undefined, "127.0.0.1:8080", "http://127.0.0.1:8080"],
    [undefined, "[::1]:80", "http://[::1]:80"],
    ["https://hangar.example.com", "evil.example.com", "https://hangar.example.com"],
    [undefined, "evil.example.com/path?x", undefined],
    [undefined, undefined, undefined],
  ])("configured %p, Host %p: public URL %p", (configured, host, expected) => {
    const principal = anonymousPrincipal(request(host), configured);
    expect(principal).toMatchObject({ kind: "anonymous", memberships: [], isSystemAdmin: false });
    expect(principal.publicUrl).toBe(expected);
  });
});
