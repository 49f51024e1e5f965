import { readFile } from "node:fs/promises";
import path from "node:path";
import { startWithTenants, type TestPlatform, type TestTenant } from "@hangar/test-harness";
import { ok } from "./invocation-fixtures";
import { sdkWorkspace, type SdkWorkspace } from "./sdk-fixtures";

// The calls only the newest client, roboto 0.62.0, makes to implemented areas (sdk-0.62-routes.md
// rows 26-39, 42, 43): device types and a device's configurations through its FileSystem, links
// (created, listed, downloaded by following them to their target), directory deletes, download
// credentials per association, and deleting a device while keeping its configurations (the CLI's
// browser sign-in, rows 68-70, is cli-login.e2e.ts). The flows
// both releases make are in sdk-compat.e2e.ts and sdk-compat-more.e2e.ts.

let t: TestPlatform;
let alice: TestTenant;
let ws: SdkWorkspace;

beforeAll(async () => {
  [t, alice] = await startWithTenants(["sdk-062"]);
  ws = await sdkWorkspace(t, "newest");
});
afterAll(async () => {
  await t?.close();
  await ws?.close();
});

const CONFIGURATIONS = `
import json, pathlib, sys
from roboto import Dataset, Device, DeviceType, RobotoClient
from roboto.domain.orgs import Org

args = json.loads(sys.argv[1])
client = RobotoClient.from_env()
source = pathlib.Path(args["source"])

runbook_ds = Dataset.create(name="runbooks", roboto_client=client)
runbook_ds.upload_file(source / "runbook.txt", file_destination_path="runbook.txt")
runbook = runbook_ds.get_file_by_path("runbook.txt")

rover = DeviceType.create(name="rover", description="six wheels", roboto_client=client)
rover.configurations.upload_file(source / "type.yaml", file_destination_path="shared/type.yaml")
device = Device.create("fleet/rover-01", device_type_id=rover.device_type_id, roboto_client=client)
device.configurations.upload_files(
    [source / "arm.yaml", source / "old.yaml"],
    file_destination_paths={source / "arm.yaml": "calib/arm.yaml", source / "old.yaml": "scratch/old.yaml"},
)
link = device.configurations.create_link(runbook, "docs/runbook.txt")
own = sorted((f.relative_path, f.is_link) for f in device.configurations.list_files())
inherited = sorted(f.relative_path for f in device.configurations.list_files(include_inherited=True))
downloaded = device.configurations.download_files(pathlib.Path(args["download_to"]), print_progress=False)
device.configurations.delete_directories(["scratch"])
after_delete = sorted(f.relative_path for f in device.configurations.list_files())

same = Device.from_id("fleet/rover-01", roboto_client=client)
untyped = same.set_device_type(None)
device.delete(keep_configurations=True)
org = Org.from_id(args["org_id"], roboto_client=client)
assets = sorted(f.relative_path for f in org.assets.list_files())

print(json.dumps({
    "runbook": runbook.file_id,
    "device": [device.device_id, device.record.universal_device_id, device.record.device_type_id, untyped.record.device_type_id],
    "type": [rover.device_type_id, rover.record.name],
    "link": [link.file_id, link.is_link, link.record.uri, link.record.size],
    "own": own,
    "inherited": inherited,
    "downloaded": sorted(str(p.relative_to(args["download_to"])) for _, p in downloaded),
    "after_delete": after_delete,
    "assets": assets,
}))
`;

test("device types, a device's configurations, links followed on download, directory deletes and keep_configurations through roboto 0.62", async () => {
  const source = await ws.directoryWith("configs", { "runbook.txt": "step 1\n", "type.yaml": "wheels: 6\n", "arm.yaml": "arm: 1\n", "old.yaml": "old\n" });
  const downloadTo = path.join(ws.work, "rover-01");

  const result = await ws.sdk("configurations", CONFIGURATIONS, { source, download_to: downloadTo, org_id: alice.orgId }, alice.token);

  // What the SDK saw.
  const [deviceId, universalId, typeId, afterUntyping] = result.device;
  expect([deviceId, typeId, afterUntyping]).toEqual(["fleet/rover-01", result.type[0], null]);
  expect(universalId).toMatch(/^dv_/);
  expect(result.type).toEqual([expect.stringMatching(/^dt_/), "rover"]);
  expect(result.link).toEqual([expect.stringMatching(/^fl_/), true, `roboto://file/${result.runbook}?v=1`, 0]);
  expect(result.own).toEqual([
    ["calib/arm.yaml", false],
    ["docs/runbook.txt", true],
    ["scratch/old.yaml", false],
  ]);
  expect(result.inherited).toEqual(["calib/arm.yaml", "docs/runbook.txt", "scratch/old.yaml", "shared/type.yaml"]);
  expect(result.downloaded).toEqual(["calib/arm.yaml", "docs/runbook.txt", "scratch/old.yaml"]);
  // The link downloads its target's bytes, from the dataset the target lives in.
  expect(await readFile(path.join(downloadTo, "docs/runbook.txt"), "utf8")).toBe("step 1\n");
  expect(await readFile(path.join(downloadTo, "calib/arm.yaml"), "utf8")).toBe("arm: 1\n");
  expect(result.after_delete).toEqual(["calib/arm.yaml", "docs/runbook.txt"]);
  // Deleting the device kept its configurations: they moved to the org's assets, the link too.
  expect(result.assets).toEqual(["calib/arm.yaml", "docs/runbook.txt"]);

  // The same, seen through the gateway: the device is gone, the org holds the link.
  expect((await alice.client.get(`/v1/devices/id/${encodeURIComponent(deviceId)}`)).status).toBe(404);
  const orgFiles = ok(await alice.client.get(`/v1/files/association/id/${alice.orgId}`));
  expect(orgFiles.map((f: { relative_path: string; fs_type: string }) => [f.relative_path, f.fs_type])).toEqual([
    ["calib/arm.yaml", "file"],
    ["docs/runbook.txt", "link"],
  ]);
  // An older client never sees the link.
  const older = ok(await alice.client.get(`/v1/files/association/id/${alice.orgId}`, { "X-Roboto-Api-Version": "2026-05-20" }));
  expect(older.map((f: { relative_path: string }) => f.relative_path)).toEqual(["calib/arm.yaml"]);
});
