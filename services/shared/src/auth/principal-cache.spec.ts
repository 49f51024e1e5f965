import { createPrincipalSigner, createPrincipalVerifier, signPrincipal, type Principal } from "./principal";

const KEY = "k".repeat(32);
const alice: Principal = { kind: "user", subject: "alice", orgId: "og_a", memberships: [{ orgId: "og_a", roles: ["owner"] }], isSystemAdmin: false };

describe("createPrincipalSigner", () => {
  test("reuses the signature of the same principal object and signs another object afresh", () => {
    const sign = createPrincipalSigner(KEY);
    const first = sign(alice);
    expect(sign(alice)).toBe(first);
    const bob = { ...alice, subject: "bob" };
    expect(sign(bob)).not.toBe(first);
    expect(createPrincipalVerifier(KEY)(sign(bob)).subject).toBe("bob");
  });
});

describe("createPrincipalVerifier", () => {
  test("verifies, remembers, and still refuses forged and foreign-key headers", () => {
    const verify = createPrincipalVerifier(KEY);
    const header = signPrincipal(alice, KEY);
    expect(verify(header)).toEqual(alice);
    expect(verify(header)).toEqual(alice);
    const forged = `${header.slice(0, header.indexOf("."))}.AAAA`;
    expect(() => verify(forged)).toThrow("invalid caller identity");
    expect(() => verify(signPrincipal(alice, "x".repeat(32)))).toThrow("invalid caller identity");
    expect(() => verify(undefined)).toThrow("missing caller identity");
  });

  test("does not serve a remembered header past its expiry", () => {
    const verify = createPrincipalVerifier(KEY);
    const expired = signPrincipal(alice, KEY, Date.now() - 120_000);
    expect(() => verify(expired)).toThrow("expired caller identity");
    const fresh = signPrincipal(alice, KEY);
    verify(fresh);
    const realNow = Date.now;
    Date.now = () => realNow() + 120_000;
    try {
      expect(() => verify(fresh)).toThrow("expired caller identity");
    } finally {
      Date.now = realNow;
    }
  });
});
