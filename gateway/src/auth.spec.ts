import { Code, ConnectError } from "@connectrpc/connect";
import { ROOT_CONTEXT } from "@opentelemetry/api";
import { createAuthenticator } from "./auth";

// The admin service's answers to the token check: a refusal is the caller's 401, an outage of admin
// or of its database stays itself (503, which clients retry) instead of telling them their token is bad.

const admin = { userId: "admin", tokenId: "tk_1", isSystemAdmin: true, memberships: [], apiScopes: [] } as never;

function authenticatorAnswering(tokenError: ConnectError | undefined, userError: ConnectError) {
  return createAuthenticator({
    authenticateToken: () => (tokenError ? Promise.reject(tokenError) : Promise.resolve(admin)),
    resolveUser: () => Promise.reject(userError),
    ttlMs: 0,
  });
}

test.each([
  ["a refused token", new ConnectError("invalid, expired or revoked API token", Code.Unauthenticated), Code.Unauthenticated, "invalid, expired or revoked API token"],
  ["an admin service whose database is away", new ConnectError("the database is unavailable; retry shortly", Code.Unavailable), Code.Unavailable, "the database is unavailable; retry shortly"],
  ["an admin service that did not answer in time", new ConnectError("upstream deadline exceeded", Code.DeadlineExceeded), Code.DeadlineExceeded, "upstream deadline exceeded"],
])("%s", async (_, error, code, message) => {
  const authenticate = authenticatorAnswering(error, error);
  await expect(authenticate({ bearer: "secret" }, ROOT_CONTEXT)).rejects.toMatchObject({ code, rawMessage: message });
});

test.each([
  ["an unknown user is the caller's 401", new ConnectError("user 'bob' not found", Code.NotFound), Code.Unauthenticated, "unknown user 'bob' in X-Service-User-Id"],
  ["an outage while resolving the user stays an outage", new ConnectError("the database is unavailable; retry shortly", Code.Unavailable), Code.Unavailable, "the database is unavailable; retry shortly"],
])("acting as another user: %s", async (_, error, code, message) => {
  const authenticate = authenticatorAnswering(undefined, error);
  await expect(authenticate({ bearer: "secret", userId: "bob" }, ROOT_CONTEXT)).rejects.toMatchObject({ code, rawMessage: message });
});

// An invocation-scoped token's invocation goes into the principal the services trust; an API token has none.
test.each([
  ["an invocation token", "iv_1", "iv_1"],
  ["an API token", "", undefined],
])("%s: the principal carries the token's invocation, if any", async (_kind, invocationId, expected) => {
  const answer = { userId: "alice", tokenId: invocationId ? "" : "tk_2", isSystemAdmin: false, memberships: [{ orgId: "og_1", roles: ["user"] }], apiScopes: [], invocationId } as never;
  const authenticate = createAuthenticator({ authenticateToken: () => Promise.resolve(answer), resolveUser: () => Promise.reject(new Error("not called")), ttlMs: 0 });
  const principal = await authenticate({ bearer: "secret" }, ROOT_CONTEXT);
  expect(principal).toMatchObject({ subject: "alice", orgId: "og_1" });
  expect(principal.invocationId).toBe(expected);
});
