import { applyTriggerChanges, checkTriggerName, evaluationListingKind, newTriggerSettings, type TriggerSettings } from "./triggers";

const owner = { orgId: "og_1", createdBy: "alice@example.com" };

describe("checkTriggerName", () => {
  test("letters (any script), digits, '_' and '-' up to 256 characters", () => {
    expect(checkTriggerName("ingest_bags-v2")).toBe("ingest_bags-v2");
    expect(checkTriggerName("données-été")).toBe("données-été");
    expect(checkTriggerName("x".repeat(256))).toHaveLength(256);
    expect(checkTriggerName("ü".repeat(256))).toHaveLength(256);
  });

  test.each([["has space"], ["dot.ted"], ["slash/ed"], ["x".repeat(257)], [""]])("refuses %j naming `name`", (name) => {
    expect(() => checkTriggerName(name)).toThrow(/^\[invalid_argument\] name: /);
  });
});

describe("newTriggerSettings and applyTriggerChanges", () => {
  const created = (): TriggerSettings => newTriggerSettings({ actionName: "process", forEach: "dataset", requiredInputs: ["*.bag"] }, owner);

  test("a new trigger takes the defaults: the owner's org and user, file_upload, enabled", () => {
    expect(created()).toEqual({
      actionName: "process",
      actionOwnerId: "og_1",
      actionDigest: null,
      requiredInputs: ["*.bag"],
      additionalInputs: [],
      causes: ["file_upload"],
      forEach: "dataset",
      enabled: true,
      condition: null,
      computeRequirementOverrides: null,
      containerParameterOverrides: null,
      parameterValues: {},
      serviceUserId: "alice@example.com",
      timeout: null,
    });
  });

  test("the required settings are checked even when left out", () => {
    expect(() => newTriggerSettings({ forEach: "dataset", requiredInputs: ["*"] }, owner)).toThrow(/action_name: is required/);
    expect(() => newTriggerSettings({ actionName: "a", requiredInputs: ["*"] }, owner)).toThrow(/for_each: /);
    expect(() => newTriggerSettings({ actionName: "a", forEach: "dataset" }, owner)).toThrow(/required_inputs: /);
  });

  test("absent edits keep a setting, null clears it to its default", () => {
    const edited = applyTriggerChanges(created(), { timeout: 60, causes: ["file_ingest", "file_ingest"], serviceUserId: "svc" }, owner);
    expect(edited).toMatchObject({ timeout: 60, causes: ["file_ingest"], serviceUserId: "svc", requiredInputs: ["*.bag"] });
    expect(applyTriggerChanges(edited, { timeout: null, causes: null, serviceUserId: null }, owner)).toEqual(created());
  });

  test("an empty list of causes means file_upload; a condition is stored as parsed", () => {
    const edited = applyTriggerChanges(created(), { causes: [], condition: { field: "name", comparator: "EQUALS", value: null } }, owner);
    expect(edited.causes).toEqual(["file_upload"]);
    expect(edited.condition).toEqual({ field: "name", comparator: "IS_NULL" });
  });
});

describe("evaluationListingKind", () => {
  test("absent and event_driven list evaluations, scheduled a scheduled trigger's; anything else is a 400", () => {
    expect(evaluationListingKind(undefined)).toBe("event_driven");
    expect(evaluationListingKind("event_driven")).toBe("event_driven");
    expect(evaluationListingKind("scheduled")).toBe("scheduled");
    expect(() => evaluationListingKind("cron")).toThrow(/^\[invalid_argument\] trigger_type: /);
  });
});
