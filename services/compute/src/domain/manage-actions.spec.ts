import { Code, ConnectError } from "@connectrpc/connect";
import { TOPICS } from "@hangar/shared";
import { anAction, memoryUnitOfWork, recordedDeletions } from "./in-memory-repositories.fixture";
import { createAction, deleteAction, getAction, setActionAccessibility, updateAction } from "./manage-actions";

const codeOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => (error instanceof ConnectError ? error.code : error));

describe("createAction", () => {
  it("stores the action and its first version under the digest of its definition", async () => {
    const { uow, state } = memoryUnitOfWork();
    const action = await createAction(uow, "alice", { orgId: "og_1", name: "process", definition: { uri: "img:1" }, metadata: {}, tags: ["a", "a"] });
    expect(action).toMatchObject({ orgId: "og_1", name: "process", createdBy: "alice", modifiedBy: "alice", tags: ["a"], accessibility: "organization" });
    expect(state.versions).toEqual([expect.objectContaining({ name: "process", digest: action.digest, definition: action.definition })]);
  });

  it("refuses a name the org already uses, writing no version", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.actions.push(anAction("og_1", "process"));
    await expect(createAction(uow, "bob", { orgId: "og_1", name: "process", definition: {}, metadata: {}, tags: [] })).rejects.toThrow(
      "name: an action named 'process' already exists in org 'og_1'",
    );
    expect(state.versions).toEqual([]);
  });

  it("checks the definition before writing anything", async () => {
    const { uow, state } = memoryUnitOfWork();
    await expect(createAction(uow, "alice", { orgId: "og_1", name: "process", definition: { timeout: 0 }, metadata: {}, tags: [] })).rejects.toThrow(/^\[invalid_argument\] timeout: /);
    expect(state.actions).toEqual([]);
  });

  it("fills unset fields from a parent the org may see, and cannot inherit another org's private action", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.actions.push(anAction("og_2", "base", { definition: { uri: "img:base" }, digest: "b1" }));
    const inherits = { name: "base", digest: null, owner: "og_2" };
    expect(await codeOf(createAction(uow, "alice", { orgId: "og_1", name: "child", definition: {}, inherits, metadata: {}, tags: [] }))).toBe(Code.NotFound);
    state.actions[0]!.accessibility = "action_hub";
    const child = await createAction(uow, "alice", { orgId: "og_1", name: "child", definition: {}, inherits, metadata: {}, tags: [] });
    expect(child.definition).toMatchObject({ uri: "img:base", inherits: { name: "base", digest: "b1", owner: "og_2" } });
  });
});

describe("getAction", () => {
  it("shows another org's action only on the Action Hub, and earlier digests only that it had", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.actions.push(anAction("og_2", "process"));
    state.versions.push({ orgId: "og_2", name: "process", digest: "old", definition: { uri: "img:old" }, created: new Date() });
    expect(await codeOf(getAction(uow, { ownerOrgId: "og_2", member: false, name: "process" }))).toBe(Code.NotFound);
    expect((await getAction(uow, { ownerOrgId: "og_2", member: true, name: "process", digest: "old" })).version?.definition).toEqual({ uri: "img:old" });
    await expect(getAction(uow, { ownerOrgId: "og_2", member: true, name: "process", digest: "never" })).rejects.toThrow("action digest 'process@never' not found");
  });
});

describe("updateAction", () => {
  it("a changed definition gets a new digest and a version; an unchanged one keeps its digest", async () => {
    const { uow, state } = memoryUnitOfWork();
    const { digest: first } = await createAction(uow, "alice", { orgId: "og_1", name: "process", definition: { uri: "img:1" }, metadata: {}, tags: [] });
    const same = await updateAction(uow, "bob", { orgId: "og_1", name: "process", definition: { uri: "img:1" }, inherits: undefined });
    expect(same.digest).toBe(first);
    const changed = await updateAction(uow, "bob", { orgId: "og_1", name: "process", definition: { uri: "img:2" }, inherits: undefined });
    expect(changed.digest).not.toBe(first);
    expect(changed.modifiedBy).toBe("bob");
    expect(state.versions.map((v) => v.digest)).toEqual([first, changed.digest]);
  });

  it("edits metadata and tags, and a bad put_tags entry changes nothing", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.actions.push(anAction("og_1", "process", { metadata: { a: 1 }, tags: ["x"] }));
    const metadata = { putFields: { b: 2 }, removeFields: ["a"], replaceAll: false, putTags: ["y"], removeTags: ["x"] };
    const { digest } = await updateAction(uow, "bob", { orgId: "og_1", name: "process", definition: {}, inherits: undefined, metadata });
    expect(state.actions[0]).toMatchObject({ metadata: { b: 2 }, tags: ["y"] });
    const bad = { ...metadata, putTags: ["z", ""] };
    await expect(updateAction(uow, "bob", { orgId: "og_1", name: "process", definition: { uri: "img:9" }, inherits: undefined, metadata: bad })).rejects.toThrow(
      "metadata_changeset.put_tags[1]: must not be empty",
    );
    expect(state.actions[0]).toMatchObject({ metadata: { b: 2 }, tags: ["y"], digest });
    expect(state.versions.map((v) => v.digest)).toEqual([digest]);
  });

  it("an action the org does not hold is not found", async () => {
    const { uow } = memoryUnitOfWork();
    expect(await codeOf(updateAction(uow, "bob", { orgId: "og_1", name: "missing", definition: {}, inherits: undefined }))).toBe(Code.NotFound);
  });
});

describe("setActionAccessibility and deleteAction", () => {
  it("publishing stamps published once; a digest the action never had is not found", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.actions.push(anAction("og_1", "process"));
    const published = await setActionAccessibility(uow, "bob", { orgId: "og_1", name: "process", accessibility: "action_hub" });
    expect(published.published).toBeInstanceOf(Date);
    await expect(setActionAccessibility(uow, "bob", { orgId: "og_1", name: "process", accessibility: "organization", digest: "never" })).rejects.toThrow(
      "action digest 'process@never' not found",
    );
    expect(state.actions[0]!.accessibility).toBe("action_hub");
  });

  it("deletes the org's action and announces it; another org's name is not found and announces nothing", async () => {
    const { uow, state } = memoryUnitOfWork();
    state.actions.push(anAction("og_2", "process"));
    expect(await codeOf(deleteAction(uow, "og_1", "process"))).toBe(Code.NotFound);
    expect(state.events).toEqual([]);
    await deleteAction(uow, "og_2", "process");
    expect(state.actions).toEqual([]);
    expect(recordedDeletions(state)).toEqual([[TOPICS.computeEntityDeleted, "process", "action", "process", "og_2"]]);
  });
});
