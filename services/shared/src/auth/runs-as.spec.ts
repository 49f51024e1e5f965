import { Code, ConnectError } from "@connectrpc/connect";
import { requireRunsAs, runsAsRefusal, type RunsAsParty, type UserDirectory } from "./runs-as";
import type { Principal } from "./principal";

const party = (userId: string, roles: Record<string, string[]>, isSystemAdmin = false): RunsAsParty => ({
  userId,
  isSystemAdmin,
  memberships: Object.entries(roles).map(([orgId, r]) => ({ orgId, roles: r })),
});
const owner = party("owner", { og_a: ["owner", "user"] });
const admin = party("admin", { og_a: ["admin", "user"] });
const member = party("member", { og_a: ["user"] });
const outsider = party("outsider", { og_b: ["owner", "user"] });

describe("runsAsRefusal", () => {
  it("lets anyone run as themselves in an org they belong to", () => {
    expect(runsAsRefusal(member, "og_a", member)).toBeUndefined();
  });

  it("lets owners and admins name another member", () => {
    expect(runsAsRefusal(owner, "og_a", member)).toBeUndefined();
    expect(runsAsRefusal(admin, "og_a", owner)).toBeUndefined();
  });

  it("refuses a plain member naming someone else", () => {
    expect(runsAsRefusal(member, "og_a", owner)).toBe("only an owner or admin of org 'og_a' may name a user other than themselves");
  });

  it("refuses a user outside the org, or unknown, whoever names it", () => {
    const notMember = "the user named is not a member of org 'og_a'";
    expect(runsAsRefusal(owner, "og_a", outsider)).toBe(notMember);
    expect(runsAsRefusal(owner, "og_a", undefined)).toBe(notMember);
    expect(runsAsRefusal(outsider, "og_a", outsider)).toBe(notMember);
  });

  it("lets a system admin name a member, not a non-member", () => {
    const root = party("root", {}, true);
    expect(runsAsRefusal(root, "og_a", member)).toBeUndefined();
    expect(runsAsRefusal(root, "og_a", root)).toBe("the user named is not a member of org 'og_a'");
  });
});

describe("requireRunsAs", () => {
  const principal = (p: RunsAsParty): Principal => ({ kind: "user", subject: p.userId, orgId: "og_a", memberships: p.memberships, isSystemAdmin: p.isSystemAdmin });
  const directory: UserDirectory = async (userId) => [owner, admin, member, outsider].find((p) => p.userId === userId);

  it("asks the directory nothing when callers name themselves", async () => {
    const never: UserDirectory = () => Promise.reject(new Error("asked"));
    await expect(requireRunsAs(principal(member), "og_a", "member", "service_user_id", never)).resolves.toBeUndefined();
  });

  it("throws PERMISSION_DENIED naming the field", async () => {
    const error = await requireRunsAs(principal(member), "og_a", "owner", "service_user_id", directory).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.PermissionDenied);
    expect((error as ConnectError).rawMessage).toMatch(/^service_user_id: only an owner or admin/);
  });
});
