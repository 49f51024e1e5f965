import { checkContentMode, checkResourceRefs, customFieldChanges, isEmptyChange } from "./collections";

describe("checkResourceRefs", () => {
  test("keeps the first reference of each resource and defaults the version to null", () => {
    const refs = checkResourceRefs(
      [
        { resourceType: "dataset", resourceId: "ds_1" },
        { resourceType: "dataset", resourceId: "ds_1", resourceVersion: "2" },
        { resourceType: "file", resourceId: "ds_1", resourceVersion: "3" },
      ],
      "resources",
    );
    expect(refs).toEqual([
      { resourceType: "dataset", resourceId: "ds_1", resourceVersion: null },
      { resourceType: "file", resourceId: "ds_1", resourceVersion: "3" },
    ]);
  });

  test("names the field of an unknown type or an empty id", () => {
    expect(() => checkResourceRefs([{ resourceType: "topic", resourceId: "tp_1" }], "add_resources")).toThrow("add_resources[0].resource_type: must be one of dataset, event, file, session, got 'topic'");
    expect(() => checkResourceRefs([{ resourceType: "file", resourceId: "" }], "resources")).toThrow("resources[0].resource_id: must not be empty");
  });
});

describe("checkContentMode", () => {
  test("an absent or empty mode is the fallback; an unknown one is a 400 naming content_mode", () => {
    expect(checkContentMode(undefined, "full")).toBe("full");
    expect(checkContentMode("", "summary_only")).toBe("summary_only");
    expect(checkContentMode("references", "full")).toBe("references");
    expect(() => checkContentMode("all", "full")).toThrow("content_mode: must be one of summary_only, references, full, got 'all'");
  });
});

describe("customFieldChanges", () => {
  test("lists the fields whose value changed, a removed one as null", () => {
    expect(customFieldChanges({ a: 1, b: { x: 1 }, c: "same" }, { a: 2, b: { x: 1 }, c: "same", d: true })).toEqual({ "custom_fields.a": 2, "custom_fields.d": true });
    expect(customFieldChanges({ gone: 1 }, {})).toEqual({ "custom_fields.gone": null });
  });
});

describe("isEmptyChange", () => {
  const none = { addedResources: [], removedResources: [], addedTags: [], removedTags: [], fieldChanges: {} };
  test("is true only when nothing is added, removed or set", () => {
    expect(isEmptyChange(none)).toBe(true);
    expect(isEmptyChange({ ...none, addedTags: ["t"] })).toBe(false);
    expect(isEmptyChange({ ...none, fieldChanges: { name: null } })).toBe(false);
  });
});
