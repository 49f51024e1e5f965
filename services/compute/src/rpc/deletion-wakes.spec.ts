import { create } from "@bufbuild/protobuf";
import { createContextValues, createHandlerContext, type HandlerContext } from "@connectrpc/connect";
import { principalKey, type Principal, type UserDirectory } from "@hangar/shared";
import { ComputeService, DeleteActionRequestSchema, DeleteInvocationRequestSchema, DeleteTriggerRequestSchema } from "@hangar/shared/proto/compute";
import { anAction, anInvocation, memoryUnitOfWork, recordedDeletions, type MemoryState } from "../domain/in-memory-repositories.fixture";
import { createTrigger } from "../domain/manage-triggers";
import { InvocationStatus } from "../domain/invocation-status";
import type { DatasetDirectory } from "../domain/datasets";
import type { TriggerModelDeps } from "../domain/manage-trigger-model";
import { createActionHandlers } from "./action-handlers";
import { createInvocationHandlers } from "./invocation-handlers";
import { createTriggerHandlers } from "./trigger-handlers";

// A deletion of an action, invocation or trigger writes a ComputeEntityDeleted event to the outbox
// in its transaction; the handler then wakes the relay, as the data service's handlers do, so the
// event leaves at once instead of at the relay's next poll. Each wake must come after the commit
// (the event is already recorded when it is called), and a refused deletion wakes nothing.

const alice: Principal = { kind: "user", subject: "alice", orgId: "og_1", memberships: [{ orgId: "og_1", roles: ["owner"] }], isSystemAdmin: false };
const users: UserDirectory = async (userId) => (userId === "alice" ? { userId, memberships: alice.memberships, isSystemAdmin: false } : undefined);

function contextOf(method: keyof typeof ComputeService.method): HandlerContext {
  const values = createContextValues().set(principalKey, alice);
  return createHandlerContext({ service: ComputeService, method: ComputeService.method[method], protocolName: "connect", requestMethod: "POST", url: "http://compute/", contextValues: values });
}

/** A wake-up that notes how many deletions the outbox held when it was called. */
function wakeSpy(state: MemoryState) {
  const seen: number[] = [];
  return { seen, eventsWritten: () => void seen.push(recordedDeletions(state).length) };
}

// The handlers below reach only the unit of work; the other dependencies are never called.
const unreachable = <T>(): T => new Proxy({}, { get: () => { throw new Error("not used by a deletion"); } }) as T;

it("deleting an action wakes the relay after the deletion event is committed; a refused one does not", async () => {
  const { uow, state } = memoryUnitOfWork();
  state.actions.push(anAction("og_1", "process"));
  const spy = wakeSpy(state);
  const handlers = createActionHandlers({ uow, eventsWritten: spy.eventsWritten });
  await expect(handlers.deleteAction(create(DeleteActionRequestSchema, { name: "missing" }), contextOf("deleteAction"))).rejects.toThrow("not found");
  expect(spy.seen).toEqual([]);
  await handlers.deleteAction(create(DeleteActionRequestSchema, { name: "process" }), contextOf("deleteAction"));
  expect(spy.seen).toEqual([1]);
});

it("deleting an invocation wakes the relay after the deletion event is committed", async () => {
  const { uow, state } = memoryUnitOfWork();
  state.invocations.push(anInvocation("og_1", "iv_1", { lastStatus: InvocationStatus.Completed }));
  const spy = wakeSpy(state);
  const handlers = createInvocationHandlers({ uow, datasets: unreachable<DatasetDirectory>(), concurrencyLimit: 1, eventsWritten: spy.eventsWritten });
  await handlers.deleteInvocation(create(DeleteInvocationRequestSchema, { invocationId: "iv_1" }), contextOf("deleteInvocation"));
  expect(spy.seen).toEqual([1]);
});

it("deleting a trigger wakes the relay after the deletion event is committed", async () => {
  const { uow, state } = memoryUnitOfWork();
  state.actions.push(anAction("og_1", "process"));
  await createTrigger(uow, users, alice, { orgId: "og_1", name: "t1", changes: { actionName: "process", forEach: "dataset", requiredInputs: ["*.bag"] } });
  const spy = wakeSpy(state);
  const handlers = createTriggerHandlers({ uow, users, datasets: unreachable<DatasetDirectory>(), model: unreachable<TriggerModelDeps>(), eventsWritten: spy.eventsWritten });
  await handlers.deleteTrigger(create(DeleteTriggerRequestSchema, { name: "t1" }), contextOf("deleteTrigger"));
  expect(spy.seen).toEqual([1]);
});
