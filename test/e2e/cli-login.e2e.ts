import { spawn } from "node:child_process";
import http from "node:http";
import { createHash } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { apiClient, expectBadRequest, requiredEnv, startWithTenants, waitFor, type ApiResponse, type TestPlatform, type TestTenant } from "@hangar/test-harness";

// `roboto auth login` (sdk-0.62-routes.md rows 68-70) with the 0.62 CLI against the platform: the
// discovery document names the gateway, the CLI creates a credential request without a token and
// waits on its loopback listener; the test plays the user in the browser (approves through the API
// with the user's token, then follows the redirect to the CLI's listener); the CLI redeems the code
// with its PKCE verifier and saves a token that works. Then the rules of the three steps through
// the gateway: bad input names the field, every failed redemption answers alike, one redemption
// per approval, and the anonymous routes' own size and rate bounds.

let t: TestPlatform;
let alice: TestTenant;
let bob: TestTenant;
let home: string;
let anonymous: ReturnType<typeof apiClient>;

beforeAll(async () => {
  [t, alice, bob] = await startWithTenants(["login-alice", "login-bob"]);
  home = await mkdtemp(path.join(tmpdir(), "hangar-login-"));
  anonymous = apiClient(t.url);
});
afterAll(async () => {
  await t?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

const roboto = () => path.join(path.dirname(requiredEnv("HANGAR_TEST_ROBOTO_NEXT_PYTHON")), "roboto");

/** A CLI login in flight: its output so far, and its end. */
interface CliRun {
  output: () => string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/**
 * Runs `roboto auth login` in a fresh HOME, in loopback mode (a display is named, so the CLI listens
 * for the redirect); its "browser" is a script that only records that it was asked to open a URL.
 * Without `--suppress-upgrade-check` the CLI asks PyPI for a newer release after every command.
 */
async function startLogin(profileHome: string): Promise<CliRun> {
  const browser = path.join(profileHome, "browser.sh");
  await writeFile(browser, `#!/bin/sh\necho "$1" >> "${profileHome}/opened.txt"\n`);
  await chmod(browser, 0o755);
  const env = { PATH: process.env.PATH ?? "", HOME: profileHome, DISPLAY: ":99", BROWSER: browser, PYTHONUNBUFFERED: "1" };
  const child = spawn(roboto(), ["--suppress-upgrade-check", "auth", "login", "--endpoint", t.url], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return { output: () => stdout, done };
}

/** What the CLI printed for the user: the request's id (in the approval URL) and the confirmation code. */
async function printedRequest(run: CliRun): Promise<{ id: string; code: string; approvalUrl: string }> {
  const printed = () => {
    const url = /^\s+(http\S+)$/m.exec(run.output())?.[1];
    const code = /confirmation code: (\S+)/.exec(run.output())?.[1];
    return url && code ? { id: new URL(url).searchParams.get("credential_request_id")!, code, approvalUrl: url } : undefined;
  };
  const ended = run.done.then((result) => {
    throw new Error(`the CLI ended before printing its instructions: ${JSON.stringify(result)}`);
  });
  return Promise.race([waitFor("the CLI's sign-in instructions", async () => printed(), 90_000), ended]);
}

const challengeOf = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
const VERIFIER = "v".repeat(43) + "erifier-of-the-test-client";
const baseRequest = (extra: Record<string, unknown> = {}) => ({
  code_challenge: challengeOf(VERIFIER),
  code_challenge_method: "S256",
  client_hostname: "robot-laptop",
  client_version: "0.62.0",
  token_expiry_days: 7,
  ...extra,
});
const ok = <T = any>(res: ApiResponse<{ data: T }>): T => {
  expect({ status: res.status, error: (res.body as { error?: unknown } | undefined)?.error }).toEqual({ status: 200, error: undefined });
  return res.body.data;
};

test("the discovery document names this gateway for browser sign-in", async () => {
  const res = await fetch(`${t.url}/.well-known/roboto.json`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ "credential_requests.v1": t.url });
});

test("roboto auth login: approved in the 'browser', the CLI saves a working token of the approving user", async () => {
  const profileHome = await mkdtemp(path.join(home, "approve-"));
  const run = await startLogin(profileHome);
  const { id, code, approvalUrl } = await printedRequest(run);
  expect(approvalUrl).toBe(`${t.url}/v1/tokens/requests/approve?credential_request_id=${id}`);
  expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
  await waitFor("the CLI to open its browser", async () => ((await readFile(path.join(profileHome, "opened.txt"), "utf8").catch(() => "")).includes(id) ? true : undefined));

  const approval = ok(await alice.client.post("/v1/tokens/requests/approve", { credential_request_id: id, confirmation_code: code.toLowerCase() }));
  expect(approval).toMatchObject({ client_hostname: expect.any(String), client_version: "0.62.0", redirect_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=[\w-]+&state=[\w-]+$/) });
  const callback = await fetch(approval.redirect_url);
  expect(callback.status).toBe(200);

  const result = await run.done;
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
  expect(result.stdout).toContain(`Signed in as ${alice.userId}.`);
  const config = JSON.parse(await readFile(path.join(profileHome, ".roboto", "config.json"), "utf8"));
  const saved = JSON.stringify(config);
  const secret = /"(hgr_[\w-]+)"/.exec(saved)?.[1];
  expect(saved).toContain(t.url);
  const asCli = apiClient(t.url, secret);
  expect(ok(await asCli.get("/v1/users/whoami")).user_id).toBe(alice.userId);
  // The token is alice's, named for the machine; bob cannot see it; the approval cannot be reused.
  const mine = ok(await alice.client.get("/v1/tokens")) as { context: { token_id: string; name: string } }[];
  const issued = mine.find((token) => token.context.name.startsWith("roboto CLI on "))!;
  expect(issued).toBeDefined();
  expect((await bob.client.get(`/v1/tokens/id/${issued.context.token_id}`)).status).toBe(404);
  expect((await alice.client.post("/v1/tokens/requests/approve", { credential_request_id: id, confirmation_code: code })).status).toBe(404);
}, 180_000);

test("roboto auth login: denied in the 'browser', the CLI says so and no token is made", async () => {
  const profileHome = await mkdtemp(path.join(home, "deny-"));
  const before = (ok(await alice.client.get("/v1/tokens")) as unknown[]).length;
  const run = await startLogin(profileHome);
  const { id } = await printedRequest(run);
  const denial = ok(await alice.client.post("/v1/tokens/requests/deny", { credential_request_id: id }));
  expect(denial.redirect_url).toMatch(/\?error=access_denied&state=/);
  expect((await fetch(denial.redirect_url)).status).toBe(200);
  const result = await run.done;
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain("You denied the sign-in in the browser.");
  expect((ok(await alice.client.get("/v1/tokens")) as unknown[]).length).toBe(before);
}, 180_000);

describe("the flow's rules through the gateway", () => {
  const create = async (extra: Record<string, unknown> = {}) => ok(await anonymous.post("/v1/tokens/requests", baseRequest(extra)));

  test("creating needs no token (one sent is ignored) and answers the SDK's CreateCredentialRequestResult", async () => {
    const created = ok(await apiClient(t.url, "not-a-token").post("/v1/tokens/requests", baseRequest()));
    expect(created).toEqual({ credential_request_id: expect.stringMatching(/^cr_/), confirmation_code: expect.any(String), approval_url: expect.any(String), expires: expect.any(String) });
    const ttl = Date.parse(created.expires) - Date.now();
    expect(ttl).toBeGreaterThan(5 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);
  });

  test.each([
    ["a challenge that is no S256 digest", { code_challenge: "short" }, "code_challenge"],
    ["another challenge method", { code_challenge_method: "plain" }, "code_challenge_method"],
    ["a redirect that is not loopback", { redirect_uri: "http://evil.example.com/callback", state: "s".repeat(16) }, "redirect_uri"],
    ["a redirect without state", { redirect_uri: "http://127.0.0.1:8123/callback" }, "state"],
    ["a lifetime past a year", { token_expiry_days: 366 }, "token_expiry_days"],
    ["a hostname with control characters", { client_hostname: "a\nb" }, "client_hostname"],
  ])("%s is a 400 naming the field", async (_label, extra, field) => {
    expectBadRequest(await anonymous.post("/v1/tokens/requests", baseRequest(extra)), field);
  });

  test("approving takes a user's token and the printed code; a wrong code, or an unknown request, is a 404 and leaves it pending", async () => {
    const created = await create();
    expect((await anonymous.post("/v1/tokens/requests/approve", { credential_request_id: created.credential_request_id, confirmation_code: created.confirmation_code })).status).toBe(401);
    expect((await bob.client.post("/v1/tokens/requests/approve", { credential_request_id: created.credential_request_id, confirmation_code: "ZZZZ-ZZZZ" })).status).toBe(404);
    expect((await bob.client.post("/v1/tokens/requests/approve", { credential_request_id: "cr_nothing", confirmation_code: "ZZZZ-ZZZZ" })).status).toBe(404);
    const approval = ok(await alice.client.post("/v1/tokens/requests/approve", { credential_request_id: created.credential_request_id, confirmation_code: created.confirmation_code }));
    // No redirect_uri: the user is shown the code to paste.
    expect(approval.redirect_url ?? null).toBeNull();
    expect(approval.authorization_code).toMatch(/^[\w-]{43}$/);
  });

  test("redeeming: every failure answers alike; a good exchange works once; five wrong verifiers burn the request", async () => {
    const created = await create();
    const id = created.credential_request_id;
    const exchange = (body: Record<string, unknown>) => anonymous.post("/v1/tokens/requests/exchange", { credential_request_id: id, code_verifier: VERIFIER, ...body });
    const notYet = await exchange({ authorization_code: "x".repeat(43) });
    expect(notYet.status).toBe(400);
    const { authorization_code } = ok(await alice.client.post("/v1/tokens/requests/approve", { credential_request_id: id, confirmation_code: created.confirmation_code }));
    const unknown = await anonymous.post("/v1/tokens/requests/exchange", { credential_request_id: "cr_nothing", authorization_code, code_verifier: VERIFIER });
    const wrongVerifier = await exchange({ authorization_code, code_verifier: "w".repeat(43) });
    for (const refused of [unknown, wrongVerifier]) expect(refused.body).toEqual(notYet.body);
    const token = ok(await exchange({ authorization_code }));
    expect(token).toMatchObject({ secret: expect.stringMatching(/^hgr_/), user_id: alice.userId, context: { name: "roboto CLI on robot-laptop", enabled: true } });
    expect(Date.parse(token.context.expires) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect((await exchange({ authorization_code })).body).toEqual(notYet.body);

    const other = await create();
    const code = ok(await alice.client.post("/v1/tokens/requests/approve", { credential_request_id: other.credential_request_id, confirmation_code: other.confirmation_code })).authorization_code;
    for (let i = 0; i < 5; i++) {
      expect((await anonymous.post("/v1/tokens/requests/exchange", { credential_request_id: other.credential_request_id, authorization_code: code, code_verifier: `wrong-${i}`.padEnd(43, "x") })).status).toBe(400);
    }
    expect((await anonymous.post("/v1/tokens/requests/exchange", { credential_request_id: other.credential_request_id, authorization_code: code, code_verifier: VERIFIER })).status).toBe(400);
  });

  test("the anonymous routes' own bounds: a body over 4 KiB is a 400; past 30 requests a minute from one address, 429 with Retry-After", async () => {
    const big = await anonymous.post("/v1/tokens/requests", baseRequest({ client_hostname: "h".repeat(5000) }));
    expect(big.status).toBe(400);
    expect(big.body.error.message).toBe("request body exceeds 4096 bytes");
    // Two windows' worth: however the minute turns during the burst, one window sees more than 30.
    let limited: ApiResponse | undefined;
    for (let i = 0; i < 61 && !limited; i++) {
      const res = await anonymous.post("/v1/tokens/requests", baseRequest());
      if (res.status === 429) limited = res;
    }
    expect(limited?.body.error).toMatchObject({ error_code: 429, message: expect.stringContaining("too many sign-in requests") });
    expect(Number(limited?.headers.get("retry-after"))).toBeGreaterThan(0);
    // Authenticated routes are not bounded by it.
    expect((await alice.client.get("/v1/users/whoami")).status).toBe(200);
  });

  test("a 1 MiB body to an anonymous route is refused and its kept-alive connection answers the next request", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const oversized = await rawPost(agent, "/v1/tokens/requests/exchange", Buffer.from(JSON.stringify({ credential_request_id: "x".repeat(1 << 20) })));
      expect(oversized).toMatchObject({ status: 400, body: expect.stringContaining("request body exceeds 4096 bytes") });
      // The same socket (maxSockets 1): it hung with the body left half read.
      const next = await rawPost(agent, "/v1/tokens/requests/exchange", Buffer.from("{}"));
      expect(next.status).toBe(400);
    } finally {
      agent.destroy();
    }
  });
});

/** A POST over `agent`'s connection; rejects when no answer comes within 10 s. */
function rawPost(agent: http.Agent, route: string, body: Buffer): Promise<{ status: number | undefined; body: string }> {
  const url = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method: "POST", path: route, agent, headers: { "content-type": "application/json", "content-length": body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from POST ${route} within 10 s`)));
    req.on("error", reject);
    req.end(body);
  });
}
