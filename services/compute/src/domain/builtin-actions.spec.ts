import { BUILTIN_ACTION_OWNER_ORG, MCAP_INGESTION_ACTION } from "@hangar/shared";
import { ensureBuiltinActions, mcapIngestionAction } from "./builtin-actions";
import { memoryUnitOfWork } from "./in-memory-repositories.fixture";

describe("ensureBuiltinActions", () => {
  it("creates the ingestion action on the Action Hub of the platform's org, running node on the action script", async () => {
    const { uow, state } = memoryUnitOfWork();
    await ensureBuiltinActions(uow, [mcapIngestionAction("/usr/bin/node", "/app/ingest/dist/action.js")]);
    expect(state.actions).toEqual([
      expect.objectContaining({ orgId: BUILTIN_ACTION_OWNER_ORG, name: MCAP_INGESTION_ACTION.name, accessibility: "action_hub", published: expect.any(Date) }),
    ]);
    expect(state.actions[0]!.definition).toMatchObject({ container_parameters: { entry_point: ["/usr/bin/node"], command: ["/app/ingest/dist/action.js"] } });
    expect(state.versions).toHaveLength(1);
  });

  it("changes nothing on a restart with the same definition", async () => {
    const { uow, state } = memoryUnitOfWork();
    const builtin = mcapIngestionAction("/usr/bin/node", "/app/ingest/dist/action.js");
    await ensureBuiltinActions(uow, [builtin]);
    const [first] = state.actions.map((action) => ({ ...action }));
    await ensureBuiltinActions(uow, [builtin]);
    expect(state.actions).toEqual([first]);
    expect(state.versions).toHaveLength(1);
  });

  it("moves to a new digest when the platform's definition changed, keeping the earlier one, and back onto the Action Hub", async () => {
    const { uow, state } = memoryUnitOfWork();
    await ensureBuiltinActions(uow, [mcapIngestionAction("/usr/bin/node", "/old/ingest/dist/action.js")]);
    const earlier = state.actions[0]!.digest;
    state.actions[0]!.accessibility = "organization";
    await ensureBuiltinActions(uow, [mcapIngestionAction("/usr/bin/node", "/new/ingest/dist/action.js")]);
    expect(state.actions).toHaveLength(1);
    expect(state.actions[0]).toMatchObject({ accessibility: "action_hub" });
    expect(state.actions[0]!.digest).not.toBe(earlier);
    expect(state.versions.map((version) => version.digest)).toEqual([earlier, state.actions[0]!.digest]);
  });
});
