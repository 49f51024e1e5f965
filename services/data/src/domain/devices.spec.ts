import { checkDeviceId, checkDeviceTypeName } from "./devices";

// Lengths are the requests' limits (proto max_len, the limits interceptor), not checked here.
describe("checkDeviceId", () => {
  it.each(["robot-1", "fleet/robot 7+x", "ds_lookalike", "é".repeat(256)])("accepts %p", (id) => {
    expect(checkDeviceId(id)).toBe(id);
  });

  it.each([
    ["", "device_id: is required"],
    ["tab\there", "device_id: must not contain control characters"],
    ["del\u007f", "device_id: must not contain control characters"],
  ])("refuses %p", (id, message) => {
    expect(() => checkDeviceId(id)).toThrow(message);
  });
});

describe("checkDeviceTypeName", () => {
  it("accepts a name with spaces inside", () => {
    expect(checkDeviceTypeName(" arm v2 ")).toBe(" arm v2 ");
  });

  it.each([
    ["  ", "name: must not be empty"],
    ["line\nbreak", "name: must not contain control characters"],
  ])("refuses %p", (name, message) => {
    expect(() => checkDeviceTypeName(name)).toThrow(message);
  });
});
