import type { JsonObject } from "@bufbuild/protobuf";
import { applyCustomFieldChanges, applyFieldChanges } from "./changeset";

const removing = (current: JsonObject, ...removeFields: string[]) => applyFieldChanges(current, { removeFields, replaceAll: false }, "metadata_changeset");

describe("applyFieldChanges: remove_fields", () => {
  it.each<[string, JsonObject, string[], JsonObject]>([
    ["drops the objects a removal left empty, up to the root", { a: { b: { c: 1 } }, keep: 1 }, ["a.b.c"], { keep: 1 }],
    ["stops at the first container that still holds something", { a: { b: { c: 1 }, d: 2 } }, ["a.b.c"], { a: { d: 2 } }],
    ["drops a list the removal emptied", { runs: [1], x: 0 }, ["runs.0"], { x: 0 }],
    ["drops an object left empty inside a list, and the list", { runs: [{ id: 1 }] }, ["runs.0.id"], {}],
    ["keeps a list that still has elements", { runs: [{ id: 1 }, { id: 2 }] }, ["runs.0.id"], { runs: [{ id: 2 }] }],
    ["drops an already empty parent of a missing key", { a: {} }, ["a.b"], {}],
    ["leaves everything when a path runs through a scalar", { keep: 1 }, ["keep.deeper"], { keep: 1 }],
    ["leaves everything when a path's parent is missing", { a: { b: 1 } }, ["x.y.z"], { a: { b: 1 } }],
  ])("%s", (_name, current, paths, expected) => {
    expect(removing(current, ...paths)).toEqual(expected);
  });

  it("does not modify its input", () => {
    const current = { a: { b: 1 } };
    removing(current, "a.b");
    expect(current).toEqual({ a: { b: 1 } });
  });
});

describe("applyCustomFieldChanges", () => {
  it("sets set_fields names and clears clear_fields names to null, after the tagless edits", () => {
    const result = applyCustomFieldChanges(
      { owner: "ops", review: "open", drop: 1 },
      { removeFields: ["drop"], replaceAll: false, setFields: { owner: "qa", "a.b": 2 }, clearFields: ["review"] },
      "custom_fields_changeset",
    );
    expect(result).toEqual({ owner: "qa", review: null, "a.b": 2 });
  });

  it("treats `__proto__` as an ordinary name", () => {
    const result = applyCustomFieldChanges({}, { removeFields: [], replaceAll: false, setFields: JSON.parse('{"__proto__": 1}'), clearFields: [] }, "f");
    expect(Object.keys(result)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(result, "__proto__")?.value).toBe(1);
  });
});
