import { Code, ConnectError } from "@connectrpc/connect";
import type { RunsAsParty } from "@hangar/shared";
import {
  isPermanentFailure,
  outcomeOf,
  planEvaluation,
  planEvaluationPage,
  type EvaluatedTrigger,
  type EvaluationOccasion,
  type EvaluationSources,
  type TriggerDataQueries,
} from "./trigger-evaluation";

const upload: EvaluationOccasion = {
  cause: "file_upload",
  orgId: "og_1",
  datasetId: "ds_1",
  transactionId: "tx_1",
  files: [
    { fileId: "fl_a", relativePath: "a.bag" },
    { fileId: "fl_b", relativePath: "logs/b.bag" },
    { fileId: "fl_c", relativePath: "c.txt" },
  ],
};

function trigger(overrides: Partial<EvaluatedTrigger> = {}): EvaluatedTrigger {
  return {
    triggerId: "tr_1",
    orgId: "og_1",
    actionName: "process",
    actionOwnerId: "og_1",
    actionDigest: null,
    requiredInputs: ["*.bag"],
    additionalInputs: ["extra.yaml"],
    causes: ["file_upload"],
    forEach: "dataset",
    enabled: true,
    condition: null,
    computeRequirementOverrides: null,
    containerParameterOverrides: null,
    parameterValues: { threshold: "1" },
    serviceUserId: "svc@example.com",
    serviceUserGrantedBy: "svc@example.com",
    timeout: 60,
    ...overrides,
  };
}

/** The dataset's files, as the data service would list them. */
const datasetFiles = [
  { fileId: "fl_old", relativePath: "old.bag" },
  { fileId: "fl_new", relativePath: "new.bag" },
  { fileId: "fl_txt", relativePath: "notes.txt" },
];

/** Sources answering from fixed data, recording which questions were asked. */
function sources(options: { present?: string[]; meets?: boolean | string[]; invoked?: string[]; users?: RunsAsParty[] } = {}) {
  const asked: string[] = [];
  const meets = (id: string) => (Array.isArray(options.meets) ? options.meets.includes(id) : (options.meets ?? true));
  const data: TriggerDataQueries = {
    anyFileMatches: async (_datasetId, pattern) => (asked.push(`pattern ${pattern}`), (options.present ?? ["*.bag"]).includes(pattern)),
    filesMatching: async (_datasetId, patterns) => (asked.push(`files ${patterns.join(",")}`), datasetFiles.filter((f) => patterns.some((p) => f.relativePath.endsWith(p.replace("*", ""))))),
    datasetMeets: async (datasetId) => (asked.push(`dataset ${datasetId}`), meets(datasetId)),
    fileMeets: async (fileId) => (asked.push(`file ${fileId}`), meets(fileId)),
  };
  const people = options.users ?? [{ userId: "svc@example.com", isSystemAdmin: false, memberships: [{ orgId: "og_1", roles: ["user"] }] }];
  const all: EvaluationSources = {
    data,
    invoked: async (ids) => new Set(ids.filter((id) => (options.invoked ?? []).includes(id))),
    users: async (userId) => people.find((p) => p.userId === userId),
  };
  return { all, asked };
}

describe("planEvaluation, for_each dataset", () => {
  test("invokes once with the required and additional inputs when every pattern is present", async () => {
    const plan = await planEvaluation(trigger(), upload, sources().all);
    expect(plan).toEqual({
      invoke: [
        {
          orgId: "og_1",
          submitter: "svc@example.com",
          action: { name: "process", ownerOrgId: "og_1", digest: undefined },
          dataSource: { type: "Dataset", id: "ds_1" },
          inputData: ["*.bag", "extra.yaml"],
          idempotencyId: "trigger:tr_1:ds_1",
          computeRequirementOverrides: null,
          containerParameterOverrides: null,
          parameterValues: { threshold: "1" },
          timeout: 60,
          source: { type: "Trigger", id: "tr_1" },
        },
      ],
    });
  });

  test("a disabled trigger asks nothing and is skipped", async () => {
    const { all, asked } = sources();
    expect(await planEvaluation(trigger({ enabled: false }), upload, all)).toEqual({ skip: "trigger_disabled" });
    expect(asked).toEqual([]);
  });

  test("a dataset it already ran on is skipped before the data service is asked", async () => {
    const { all, asked } = sources({ invoked: ["trigger:tr_1:ds_1"] });
    expect(await planEvaluation(trigger(), upload, all)).toEqual({ skip: "already_run" });
    expect(asked).toEqual([]);
  });

  test("one pattern without a match is no_matching_files", async () => {
    const plan = await planEvaluation(trigger({ requiredInputs: ["*.bag", "meta.json"] }), upload, sources().all);
    expect(plan).toEqual({ skip: "no_matching_files" });
  });

  test("the condition goes to the data service only when set", async () => {
    const unconditioned = sources();
    await planEvaluation(trigger(), upload, unconditioned.all);
    expect(unconditioned.asked).toEqual(["pattern *.bag"]);
    const condition = { field: "name", comparator: "EQUALS", value: "x" };
    expect(await planEvaluation(trigger({ condition }), upload, sources({ meets: false }).all)).toEqual({ skip: "condition_not_met" });
  });
});

describe("planEvaluation, for_each dataset_file", () => {
  const perFile = (overrides: Partial<EvaluatedTrigger> = {}) => trigger({ forEach: "dataset_file", ...overrides });

  test("invokes once per new file matching a required pattern, with that file's path and the additional inputs", async () => {
    const plan = await planEvaluation(perFile(), upload, sources().all);
    expect("invoke" in plan && plan.invoke.map((r) => [r.idempotencyId, r.inputData])).toEqual([
      ["trigger:tr_1:fl_a", ["a.bag", "extra.yaml"]],
      ["trigger:tr_1:fl_b", ["logs/b.bag", "extra.yaml"]],
    ]);
  });

  test("matches the upload's paths as the data service's listings do: a pattern with a slash is anchored", async () => {
    const plan = await planEvaluation(perFile({ requiredInputs: ["logs/*.bag", "*.txt"] }), upload, sources().all);
    expect("invoke" in plan && plan.invoke.map((r) => r.idempotencyId)).toEqual(["trigger:tr_1:fl_b", "trigger:tr_1:fl_c"]);
    const rooted = await planEvaluation(perFile({ requiredInputs: ["/*.bag"] }), upload, sources().all);
    expect("invoke" in rooted && rooted.invoke.map((r) => r.idempotencyId)).toEqual(["trigger:tr_1:fl_a"]);
  });

  test("files that already ran are left out; when none is left the outcome is already_run", async () => {
    const some = await planEvaluation(perFile(), upload, sources({ invoked: ["trigger:tr_1:fl_a"] }).all);
    expect("invoke" in some && some.invoke.map((r) => r.idempotencyId)).toEqual(["trigger:tr_1:fl_b"]);
    const none = await planEvaluation(perFile({ requiredInputs: ["a.bag"] }), upload, sources({ invoked: ["trigger:tr_1:fl_a"] }).all);
    expect(none).toEqual({ skip: "already_run" });
  });

  test("no matching file is no_matching_files; the condition is tested per file, through the data service", async () => {
    const { all: none, asked: askedNone } = sources();
    expect(await planEvaluation(perFile({ requiredInputs: ["*.csv"] }), upload, none)).toEqual({ skip: "no_matching_files" });
    expect(askedNone).toEqual([]);
    const condition = { field: "size", comparator: "GREATER_THAN", value: 1 };
    const { all, asked } = sources({ meets: ["fl_b"] });
    const plan = await planEvaluation(perFile({ condition }), upload, all);
    expect("invoke" in plan && plan.invoke.map((r) => r.idempotencyId)).toEqual(["trigger:tr_1:fl_b"]);
    expect(asked).toEqual(["file fl_a", "file fl_b"]);
    expect(await planEvaluation(perFile({ condition, requiredInputs: ["a.bag"] }), upload, sources({ meets: false }).all)).toEqual({ skip: "condition_not_met" });
  });
});

describe("planEvaluation, when a dataset's fields change", () => {
  const changed: EvaluationOccasion = { cause: "dataset_metadata_update", orgId: "og_1", datasetId: "ds_1", eventId: "ev_1" };

  test("a dataset trigger is evaluated as for an upload: inputs present and the condition met fire it once", async () => {
    const condition = { field: "metadata.ready", comparator: "EQUALS", value: true };
    const { all, asked } = sources();
    const plan = await planEvaluation(trigger({ condition }), changed, all);
    expect("invoke" in plan && plan.invoke.map((r) => r.idempotencyId)).toEqual(["trigger:tr_1:ds_1"]);
    expect(asked).toEqual(["pattern *.bag", "dataset ds_1"]);
    expect(await planEvaluation(trigger({ condition }), changed, sources({ meets: false }).all)).toEqual({ skip: "condition_not_met" });
    expect(await planEvaluation(trigger(), changed, sources({ invoked: ["trigger:tr_1:ds_1"] }).all)).toEqual({ skip: "already_run" });
  });

  test("a dataset_file trigger considers the dataset's matching files, not an upload's", async () => {
    const { all, asked } = sources({ invoked: ["trigger:tr_1:fl_old"] });
    const plan = await planEvaluation(trigger({ forEach: "dataset_file" }), changed, all);
    expect("invoke" in plan && plan.invoke.map((r) => [r.idempotencyId, r.inputData])).toEqual([["trigger:tr_1:fl_new", ["new.bag", "extra.yaml"]]]);
    expect(asked).toEqual(["files *.bag"]);
  });
});

describe("planEvaluation, when a file is edited or marked ingested", () => {
  const edited = (relativePath: string): EvaluationOccasion => ({ cause: "file_metadata_update", orgId: "og_1", datasetId: "ds_1", eventId: "ev_2", file: { fileId: "fl_x", relativePath } });

  test("a dataset_file trigger considers that file alone, if it matches a required pattern", async () => {
    const plan = await planEvaluation(trigger({ forEach: "dataset_file" }), edited("deep/x.bag"), sources().all);
    expect("invoke" in plan && plan.invoke.map((r) => [r.idempotencyId, r.inputData])).toEqual([["trigger:tr_1:fl_x", ["deep/x.bag", "extra.yaml"]]]);
    expect(await planEvaluation(trigger({ forEach: "dataset_file" }), edited("x.txt"), sources().all)).toEqual({ skip: "no_matching_files" });
    const ingested: EvaluationOccasion = { ...edited("x.bag"), cause: "file_ingest" } as EvaluationOccasion;
    expect(await planEvaluation(trigger({ forEach: "dataset_file" }), ingested, sources({ invoked: ["trigger:tr_1:fl_x"] }).all)).toEqual({ skip: "already_run" });
  });

  test("a dataset trigger evaluates the whole dataset", async () => {
    const plan = await planEvaluation(trigger(), edited("x.txt"), sources().all);
    expect("invoke" in plan && plan.invoke.map((r) => r.idempotencyId)).toEqual(["trigger:tr_1:ds_1"]);
  });
});

describe("outcomeOf", () => {
  test("a plan whose invocations all existed already (a lost race) is already_run", () => {
    const plan = { invoke: [] };
    expect(outcomeOf(plan, 0)).toEqual({ outcome: "skipped", reason: "already_run" });
    expect(outcomeOf(plan, 1)).toEqual({ outcome: "invoked_action", reason: null });
    expect(outcomeOf({ skip: "no_matching_files" }, 0)).toEqual({ outcome: "skipped", reason: "no_matching_files" });
  });
});

describe("isPermanentFailure", () => {
  test("refusals are permanent; outages and unknown errors are retried", () => {
    expect(isPermanentFailure(new ConnectError("condition.field: unknown", Code.InvalidArgument))).toBe(true);
    expect(isPermanentFailure(new ConnectError("dataset 'ds_1' not found", Code.NotFound))).toBe(true);
    expect(isPermanentFailure(new ConnectError("connection refused", Code.Unavailable))).toBe(false);
    expect(isPermanentFailure(new ConnectError("deadline", Code.DeadlineExceeded))).toBe(false);
    expect(isPermanentFailure(new Error("database closed"))).toBe(false);
  });
});

describe("planEvaluationPage", () => {
  test("defaults to 100 from the top; a token continues below the last id served", () => {
    const first = planEvaluationPage(undefined, undefined, "trigger:tr_1");
    expect({ limit: first.limit, before: first.before }).toEqual({ limit: 100, before: undefined });
    const token = first.nextToken(17, true);
    expect(planEvaluationPage(2n, token, "trigger:tr_1").before).toBe(17);
    expect(first.nextToken(17, false)).toBeUndefined();
  });

  test("a bad limit, a malformed token and another listing's token are 400s", () => {
    expect(() => planEvaluationPage(0n, undefined, "trigger:tr_1")).toThrow(/^\[invalid_argument\] limit: /);
    expect(() => planEvaluationPage(undefined, "%%%", "trigger:tr_1")).toThrow(/^\[invalid_argument\] page_token: /);
    const token = planEvaluationPage(undefined, undefined, "dataset:ds_1").nextToken(5, true);
    expect(() => planEvaluationPage(undefined, token, "trigger:tr_1")).toThrow(/^\[invalid_argument\] page_token: /);
  });
});

describe("planEvaluation, service user re-check", () => {
  const member = (userId: string, roles: string[]): RunsAsParty => ({ userId, isSystemAdmin: false, memberships: [{ orgId: "og_1", roles }] });

  test("refuses, naming the service user, when it has left the org", async () => {
    const error = await planEvaluation(trigger(), upload, sources({ users: [] }).all).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.PermissionDenied);
    expect((error as ConnectError).rawMessage).toBe(
      "service_user_id: the trigger may no longer run as 'svc@example.com': the user named is not a member of org 'og_1'",
    );
    expect(isPermanentFailure(error)).toBe(true);
  });

  test("refuses when whoever named another member is no longer an owner or admin", async () => {
    const named = trigger({ serviceUserGrantedBy: "lead@example.com" });
    const demoted = sources({ users: [member("svc@example.com", ["user"]), member("lead@example.com", ["user"])] });
    await expect(planEvaluation(named, upload, demoted.all)).rejects.toThrow(/may name a user other than themselves/);
    const stillAdmin = sources({ users: [member("svc@example.com", ["user"]), member("lead@example.com", ["admin", "user"])] });
    await expect(planEvaluation(named, upload, stillAdmin.all)).resolves.toHaveProperty("invoke");
  });

  test("does not ask about the service user of a disabled trigger", async () => {
    await expect(planEvaluation(trigger({ enabled: false }), upload, sources({ users: [] }).all)).resolves.toEqual({ skip: "trigger_disabled" });
  });
});
