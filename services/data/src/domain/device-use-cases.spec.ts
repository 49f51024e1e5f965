import { fixedUnitOfWork } from "@hangar/shared";
import { deleteDeviceType, updateDeviceType } from "./device-type-use-cases";
import { createDevice, deleteDevice, issueDeviceToken, updateDevice } from "./device-use-cases";
import { deviceRecord, deviceTypeRecord, fakeRepositories } from "./fake-repositories.fixture";

const alice = { orgId: "og_a", subject: "u_alice" };
const bob = { orgId: "og_b", subject: "u_bob" };

function setUp() {
  const fake = fakeRepositories();
  fake.devices.set("dv_robot-1", deviceRecord("robot-1", "og_a", { deviceTypeId: "dt_arm" }));
  fake.types.set("dt_arm", deviceTypeRecord("dt_arm", "og_a"));
  fake.types.set("dt_spare", deviceTypeRecord("dt_spare", "og_a"));
  return { ...fake, uow: fixedUnitOfWork(fake.repositories) };
}

describe("createDevice", () => {
  it("takes a device type of the org with a shared lock", async () => {
    const { uow, calls } = setUp();
    const device = await createDevice(uow, alice, { deviceId: "robot-2", deviceTypeId: "dt_arm", tags: [] });
    expect(device).toMatchObject({ orgId: "og_a", deviceId: "robot-2", deviceTypeId: "dt_arm", createdBy: "u_alice" });
    expect(calls).toEqual(["deviceTypes.find dt_arm share"]);
  });

  it("is a 409 naming device_id when the org has the id already", async () => {
    const { uow } = setUp();
    await expect(createDevice(uow, alice, { deviceId: "robot-1", tags: [] })).rejects.toThrow("device_id: a device 'robot-1' already exists in org 'og_a'");
  });

  it("refuses an empty device type id with a 400, and another org's type with a 404", async () => {
    const { uow, devices } = setUp();
    await expect(createDevice(uow, alice, { deviceId: "robot-3", deviceTypeId: "", tags: [] })).rejects.toThrow("device_type_id: must be a device type id or null");
    await expect(createDevice(uow, bob, { deviceId: "robot-3", deviceTypeId: "dt_arm", tags: [] })).rejects.toThrow("device type 'dt_arm' not found");
    expect(devices.size).toBe(1);
  });

  it("checks the id and tags before reading anything", async () => {
    const { uow, calls } = setUp();
    await expect(createDevice(uow, alice, { deviceId: "a\tb", deviceTypeId: "dt_arm", tags: [] })).rejects.toThrow("device_id: must not contain control characters");
    await expect(createDevice(uow, alice, { deviceId: "ok", deviceTypeId: "dt_arm", tags: [""] })).rejects.toThrow("tags[0]: must not be empty");
    expect(calls).toEqual([]);
  });
});

describe("updateDevice", () => {
  it("locks the device; null clears the type; a new type is taken with a shared lock", async () => {
    const { uow, calls, devices } = setUp();
    await updateDevice(uow, alice, "robot-1", { deviceTypeId: null });
    expect(devices.get("dv_robot-1")!.deviceTypeId).toBeNull();
    await updateDevice(uow, { ...alice, subject: "u_editor" }, "robot-1", { deviceTypeId: "dt_spare" });
    expect(devices.get("dv_robot-1")).toMatchObject({ deviceTypeId: "dt_spare", modifiedBy: "u_editor" });
    expect(calls).toEqual(["devices.find robot-1 locked", "devices.find robot-1 locked", "deviceTypes.find dt_spare share"]);
  });
});

describe("deleteDevice", () => {
  it("retires the device's files, removes it, and removes its user last", async () => {
    const { uow, calls } = setUp();
    await deleteDevice(uow, alice, "robot-1", { keepConfigurations: false, removeUser: async (d) => void calls.push(`removeUser ${d.universalDeviceId}`) });
    expect(calls).toEqual(["devices.find robot-1 locked", "retire device dv_robot-1", "devices.remove robot-1", "removeUser dv_robot-1"]);
  });

  it("with keep_configurations, moves the files to the root of the device's org after retiring them", async () => {
    const { uow, calls } = setUp();
    await deleteDevice(uow, alice, "robot-1", { keepConfigurations: true, removeUser: async () => undefined });
    expect(calls.slice(1, 4)).toEqual(["retire device dv_robot-1", "lock og_a", "move dv_robot-1 og_a"]);
  });

  it("is a 404 for another org's device and never calls the admin service", async () => {
    const { uow } = setUp();
    const removeUser = jest.fn(async () => undefined);
    await expect(deleteDevice(uow, bob, "robot-1", { keepConfigurations: false, removeUser })).rejects.toThrow("device 'robot-1' not found");
    expect(removeUser).not.toHaveBeenCalled();
  });
});

describe("issueDeviceToken", () => {
  it("issues with the device locked, and not at all for a device the caller cannot read", async () => {
    const { uow, calls } = setUp();
    expect(await issueDeviceToken(uow, alice, "robot-1", async (d) => (calls.push("issue"), d.deviceId))).toBe("robot-1");
    expect(calls).toEqual(["devices.find robot-1 locked", "issue"]);
    await expect(issueDeviceToken(uow, bob, "robot-1", async () => calls.push("issue"))).rejects.toThrow("device 'robot-1' not found");
    expect(calls.filter((c) => c === "issue")).toHaveLength(1);
  });
});

describe("deleteDeviceType", () => {
  it("is a 409 while a device is of the type, retiring and removing nothing", async () => {
    const { uow, calls } = setUp();
    await expect(deleteDeviceType(uow, alice, "dt_arm")).rejects.toThrow("device type 'dt_arm' is the type of 1 device(s); change or delete them first");
    expect(calls).toEqual(["deviceTypes.find dt_arm update"]);
  });

  it("locks the type, retires its files, then removes it", async () => {
    const { uow, calls } = setUp();
    await deleteDeviceType(uow, alice, "dt_spare");
    expect(calls).toEqual(["deviceTypes.find dt_spare update", "retire device_type dt_spare", "deviceTypes.remove dt_spare"]);
  });
});

describe("updateDeviceType", () => {
  it("locks the type for the update and answers its device count", async () => {
    const { uow, calls } = setUp();
    const { type, deviceCount } = await updateDeviceType(uow, alice, "dt_arm", { name: "arm v2", description: "second" });
    expect({ name: type.name, description: type.description, deviceCount }).toEqual({ name: "arm v2", description: "second", deviceCount: 1 });
    expect(calls).toEqual(["deviceTypes.find dt_arm update"]);
  });

  it("refuses a blank name", async () => {
    const { uow, types } = setUp();
    await expect(updateDeviceType(uow, alice, "dt_arm", { name: " " })).rejects.toThrow("name: must not be empty");
    expect(types.get("dt_arm")!.name).toBe("arm");
  });
});
