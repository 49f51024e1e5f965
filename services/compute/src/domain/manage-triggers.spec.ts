import { Code, ConnectError } from "@connectrpc/connect";
import { TOPICS, type Principal, type RunsAsParty, type UserDirectory } from "@hangar/shared";
import { anAction, memoryUnitOfWork, recordedDeletions } from "./in-memory-repositories.fixture";
import { createTrigger, deleteTrigger, updateTrigger } from "./manage-triggers";
import type { TriggerChanges } from "./triggers";

const member = (userId: string, roles = ["user"]): RunsAsParty => ({ userId, memberships: [{ orgId: "og_1", roles }], isSystemAdmin: false });
const users: UserDirectory = async (userId) => [member("alice", ["owner"]), member("bob"), member("svc")].find((u) => u.userId === userId);
const caller = (userId: string, roles = ["user"]): Principal => ({ kind: "user", subject: userId, orgId: "og_1", ...member(userId, roles) });
const codeOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => (error instanceof ConnectError ? error.code : error));

const settings: TriggerChanges = { actionName: "process", forEach: "dataset", requiredInputs: ["*.bag"] };

function withAction() {
  const memory = memoryUnitOfWork();
  memory.state.actions.push(anAction("og_1", "process"));
  return memory;
}

describe("createTrigger", () => {
  it("runs as its creator by default, who is recorded as the grantor", async () => {
    const { uow, state } = withAction();
    const trigger = await createTrigger(uow, users, caller("bob"), { orgId: "og_1", name: "t1", changes: settings });
    expect(trigger).toMatchObject({ serviceUserId: "bob", serviceUserGrantedBy: "bob", createdBy: "bob", enabled: true });
    expect(state.triggers).toHaveLength(1);
  });

  it("a plain member may not name another user; an owner may name a member, not a stranger", async () => {
    const { uow, state } = withAction();
    expect(await codeOf(createTrigger(uow, users, caller("bob"), { orgId: "og_1", name: "t1", changes: { ...settings, serviceUserId: "svc" } }))).toBe(Code.PermissionDenied);
    expect(await codeOf(createTrigger(uow, users, caller("alice", ["owner"]), { orgId: "og_1", name: "t1", changes: { ...settings, serviceUserId: "eve" } }))).toBe(
      Code.PermissionDenied,
    );
    expect(state.triggers).toEqual([]);
    const trigger = await createTrigger(uow, users, caller("alice", ["owner"]), { orgId: "og_1", name: "t1", changes: { ...settings, serviceUserId: "svc" } });
    expect(trigger).toMatchObject({ serviceUserId: "svc", serviceUserGrantedBy: "alice" });
  });

  it("the runs-as check comes before the action's: a refused caller learns nothing of the action", async () => {
    const { uow } = memoryUnitOfWork();
    const changes = { ...settings, actionOwnerId: "og_2", serviceUserId: "svc" };
    expect(await codeOf(createTrigger(uow, users, caller("bob"), { orgId: "og_1", name: "t1", changes }))).toBe(Code.PermissionDenied);
    expect(await codeOf(createTrigger(uow, users, caller("bob"), { orgId: "og_1", name: "t1", changes: { ...changes, serviceUserId: "bob" } }))).toBe(Code.NotFound);
  });

  it("refuses a name the org already uses and parameter values the action does not take", async () => {
    const { uow } = withAction();
    await createTrigger(uow, users, caller("bob"), { orgId: "og_1", name: "t1", changes: settings });
    expect(await codeOf(createTrigger(uow, users, caller("bob"), { orgId: "og_1", name: "t1", changes: settings }))).toBe(Code.AlreadyExists);
    await expect(createTrigger(uow, users, caller("bob"), { orgId: "og_1", name: "t2", changes: { ...settings, parameterValues: { x: "1" } } })).rejects.toThrow(
      "parameter_values.x: is not a parameter of this action",
    );
  });
});

describe("updateTrigger", () => {
  async function created() {
    const memory = withAction();
    await createTrigger(memory.uow, users, caller("alice", ["owner"]), { orgId: "og_1", name: "t1", changes: { ...settings, serviceUserId: "svc" } });
    return memory;
  }

  it("switching a trigger off needs neither the runs-as right nor the action, and keeps the grantor", async () => {
    const { uow, state } = await created();
    state.actions.splice(0);
    const trigger = await updateTrigger(uow, users, caller("bob"), { orgId: "og_1", name: "t1", changes: { enabled: false } });
    expect(trigger).toMatchObject({ enabled: false, modifiedBy: "bob", serviceUserGrantedBy: "alice" });
  });

  it("changing what runs is a new runs-as decision: refused for a plain member, and nothing changes", async () => {
    const { uow, state } = await created();
    expect(await codeOf(updateTrigger(uow, users, caller("bob"), { orgId: "og_1", name: "t1", changes: { requiredInputs: ["*.csv"] } }))).toBe(Code.PermissionDenied);
    expect(state.triggers[0]).toMatchObject({ requiredInputs: ["*.bag"], modifiedBy: "alice" });
  });

  it("an edit by someone allowed makes them the grantor; an edit of the action is checked against it", async () => {
    const { uow, state } = await created();
    const owner2 = caller("alice", ["owner"]);
    expect(await codeOf(updateTrigger(uow, users, owner2, { orgId: "og_1", name: "t1", changes: { actionName: "missing" } }))).toBe(Code.NotFound);
    state.actions.push(anAction("og_1", "other"));
    const trigger = await updateTrigger(uow, users, caller("svc"), { orgId: "og_1", name: "t1", changes: { actionName: "other" } });
    expect(trigger).toMatchObject({ actionName: "other", serviceUserGrantedBy: "svc" });
  });

  it("another org's trigger is not found", async () => {
    const { uow } = await created();
    expect(await codeOf(updateTrigger(uow, users, caller("bob"), { orgId: "og_2", name: "t1", changes: { enabled: false } }))).toBe(Code.NotFound);
  });

  it("a deletion announces the trigger by name; another org's deletes and announces nothing", async () => {
    const { uow, state } = await created();
    expect(await codeOf(deleteTrigger(uow, { orgId: "og_2", name: "t1" }))).toBe(Code.NotFound);
    expect(state.events).toEqual([]);
    await deleteTrigger(uow, { orgId: "og_1", name: "t1" });
    expect(state.triggers).toEqual([]);
    expect(recordedDeletions(state)).toEqual([[TOPICS.computeEntityDeleted, "t1", "trigger", "t1", "og_1"]]);
  });
});
