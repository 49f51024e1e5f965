import { Code, ConnectError } from "@connectrpc/connect";
import { createLogger, type RunsAsParty, type UserDirectory } from "@hangar/shared";
import { evaluateOccasion } from "./evaluate-triggers";
import { anAction, memoryUnitOfWork } from "./in-memory-repositories.fixture";
import type { TriggerRecord } from "./records";
import type { EvaluationOccasion, TriggerDataQueries } from "./trigger-evaluation";

const logger = createLogger("test", "silent");
const svc: RunsAsParty = { userId: "svc", memberships: [{ orgId: "og_1", roles: ["user"] }], isSystemAdmin: false };
const users: UserDirectory = async (userId) => (userId === "svc" ? svc : undefined);
const upload: EvaluationOccasion = { cause: "file_upload", orgId: "og_1", datasetId: "ds_1", transactionId: "tx_1", files: [{ fileId: "fl_1", relativePath: "a.bag" }] };

/** The data service: every file present; datasets meet conditions unless `answer` throws. */
function data(answer: (datasetId: string) => Promise<boolean> = async () => true): TriggerDataQueries {
  return { anyFileMatches: async () => true, filesMatching: async () => [], datasetMeets: (id) => answer(id), fileMeets: async () => true };
}

function trigger(triggerId: string, overrides: Partial<TriggerRecord> = {}): TriggerRecord {
  const at = new Date("2026-01-01T00:00:00Z");
  return {
    triggerId,
    orgId: "og_1",
    name: triggerId,
    actionName: "process",
    actionOwnerId: "og_1",
    actionDigest: null,
    requiredInputs: ["*.bag"],
    additionalInputs: [],
    causes: ["file_upload"],
    forEach: "dataset",
    enabled: true,
    condition: { field: "name", comparator: "EQUALS", value: "x" },
    computeRequirementOverrides: null,
    containerParameterOverrides: null,
    parameterValues: {},
    serviceUserId: "svc",
    timeout: null,
    created: at,
    createdBy: "svc",
    modified: at,
    modifiedBy: "svc",
    serviceUserGrantedBy: "svc",
    engine: "v1",
    firesOn: null,
    targets: null,
    managedBy: null,
    nextFireAt: null,
    ...overrides,
  };
}

function platform(...triggers: TriggerRecord[]) {
  const memory = memoryUnitOfWork();
  memory.state.actions.push(anAction("og_1", "process"));
  memory.state.triggers.push(...triggers);
  return memory;
}

const outage = new ConnectError("data service unavailable", Code.Unavailable);

describe("evaluateOccasion", () => {
  it("invokes once per trigger and dataset, and a redelivered occasion changes nothing", async () => {
    const { uow, state } = platform(trigger("tr_1"));
    await evaluateOccasion(uow, upload, { dataFor: () => data(), users }, logger);
    await evaluateOccasion(uow, upload, { dataFor: () => data(), users }, logger);
    expect(state.invocations.map((i) => [i.idempotencyId, i.createdBy, i.sourceType, i.sourceId])).toEqual([["trigger:tr_1:ds_1", "svc", "Trigger", "tr_1"]]);
    expect(state.evaluations.map((e) => [e.status, e.outcome])).toEqual([["evaluated", "invoked_action"]]);
  });

  it("an outage fails that evaluation, still evaluates the next trigger, then throws so the event is retried", async () => {
    const { uow, state } = platform(trigger("tr_1"), trigger("tr_2"));
    const flaky = data(async () => {
      if (state.evaluations.length === 1) throw outage;
      return true;
    });
    await expect(evaluateOccasion(uow, upload, { dataFor: () => flaky, users }, logger)).rejects.toBe(outage);
    expect(state.evaluations.map((e) => [e.triggerId, e.status, e.statusDetail])).toEqual([["tr_1", "failed", "data service unavailable"], ["tr_2", "evaluated", null]]);
    // The retry evaluates the failed one again and leaves the evaluated one alone.
    await evaluateOccasion(uow, upload, { dataFor: () => data(), users }, logger);
    expect(state.evaluations.map((e) => e.status)).toEqual(["evaluated", "evaluated"]);
    expect(state.invocations.map((i) => i.sourceId).sort()).toEqual(["tr_1", "tr_2"]);
  });

  it("a refusal only fails its evaluation: nothing is invoked and nothing is thrown", async () => {
    const { uow, state } = platform(trigger("tr_1", { actionName: "deleted" }), trigger("tr_2", { serviceUserId: "gone", serviceUserGrantedBy: "gone" }));
    await evaluateOccasion(uow, upload, { dataFor: () => data(), users }, logger);
    expect(state.evaluations.map((e) => [e.triggerId, e.status, e.statusDetail])).toEqual([
      ["tr_1", "failed", "action 'deleted' not found"],
      ["tr_2", "failed", "service_user_id: the trigger may no longer run as 'gone': the user named is not a member of org 'og_1'"],
    ]);
    expect(state.invocations).toEqual([]);
  });

  it("asks the data service nothing when no trigger reacts to the cause", async () => {
    const { uow, state } = platform(trigger("tr_1", { causes: ["file_ingest"] }));
    const dataFor = jest.fn(() => data());
    await evaluateOccasion(uow, upload, { dataFor, users }, logger);
    expect(dataFor).not.toHaveBeenCalled();
    expect(state.evaluations).toEqual([]);
  });
});
