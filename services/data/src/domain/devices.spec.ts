import { checkDeviceId, checkDeviceTypeName } from "./devices";

describe("checkDeviceId", () => {
  it.each(["robot-1", "fleet/robot 7+x", "ds_lookalike", "é".repeat(256)])("accepts %p", (id) => {
    expect(checkDeviceId(id)).toBe(id);
  });

  it.each([
    ["", "device_id: is required"],
    ["x".repeat(257), "device_id: must be at most 256 characters (got 257)"],
    ["tab\there", "device_id: must not contain control characters"],
  ])("refuses %p", (id, message) => {
    expect(() => checkDeviceId(id)).toThrow(message);
  });
});

describe("checkDeviceTypeName", () => {
  it("accepts up to 120 characters", () => {
    expect(checkDeviceTypeName("n".repeat(120))).toBe("n".repeat(120));
  });

  it.each([
    ["  ", "name: must not be empty"],
    ["n".repeat(121), "name: must be at most 120 characters (got 121)"],
  ])("refuses %p", (name, message) => {
    expect(() => checkDeviceTypeName(name)).toThrow(message);
  });
});
