import { isInvocationToken, mintInvocationToken, verifyInvocationToken } from "./invocation-token";
import { signPrincipal } from "./principal";

const key = "k".repeat(32);
const nowMs = Date.parse("2026-01-01T00:00:00Z");
const claims = { orgId: "og_1", userId: "alice", invocationId: "iv_1", exp: nowMs / 1000 + 60 };

describe("invocation tokens", () => {
  it("verify with the key that minted them, giving back their claims", () => {
    const token = mintInvocationToken(claims, key);
    expect(token).toMatch(/^hgi_[\w-]+\.[\w-]+$/);
    expect(isInvocationToken(token)).toBe(true);
    expect(verifyInvocationToken(token, key, nowMs)).toEqual(claims);
  });

  it("stop verifying at their expiry", () => {
    const token = mintInvocationToken(claims, key);
    expect(() => verifyInvocationToken(token, key, (claims.exp) * 1000)).toThrow("invocation token of 'iv_1' expired");
  });

  it("refuse another key's signature and a changed payload", () => {
    expect(() => verifyInvocationToken(mintInvocationToken(claims, "x".repeat(32)), key, nowMs)).toThrow("invalid invocation token");
    const [payload, signature] = mintInvocationToken(claims, key).slice(4).split(".");
    const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), org_id: "og_2" })).toString("base64url");
    expect(() => verifyInvocationToken(`hgi_${widened}.${signature}`, key, nowMs)).toThrow("invalid invocation token");
  });

  it("cannot be made from a signed principal header, which shares the key", () => {
    const header = signPrincipal({ kind: "service", subject: "x", memberships: [], isSystemAdmin: false }, key, nowMs);
    expect(() => verifyInvocationToken(`hgi_${header}`, key, nowMs)).toThrow("invalid invocation token");
    expect(isInvocationToken("hgr_stored-token")).toBe(false);
  });
});
