import { associationTypeOf } from "./associations";

describe("associationTypeOf", () => {
  it.each([
    ["ds_abc", "", "dataset"],
    ["og_abc", "", "org"],
    ["dv_abc", "", "device"],
    ["dt_abc", "", "device_type"],
    ["robot/1", "", "device"],
    ["fl_abc", "", "device"],
    ["ds_lookalike", "device", "device"],
    ["anything", "device_type", "device_type"],
  ])("reads %p with type %p as %p", (associationId, associationType, expected) => {
    expect(associationTypeOf({ associationId, associationType }, "association_type")).toBe(expected);
  });

  it("treats an absent type as not given", () => {
    expect(associationTypeOf({ associationId: "og_abc" }, "association_type")).toBe("org");
  });

  it("refuses an unknown type, naming the field", () => {
    expect(() => associationTypeOf({ associationId: "fl_abc", associationType: "file" }, "association.association_type")).toThrow(
      "association.association_type: 'file' is not supported; use 'dataset', 'org', 'device' or 'device_type'",
    );
  });
});
