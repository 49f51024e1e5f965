import { fixedUnitOfWork } from "@hangar/shared";
import type { ObjectStore } from "../object-store/object-store";
import { INTERRUPTED_ERROR, STALE_AFTER_MS, type ExportDeps } from "./export-jobs";
import { exportFiles, exportStatus } from "./export-use-cases";
import type { ExportedNode, ExportJobRecord, ExportRepository, ExportStatus } from "./exports";

const alice = { orgId: "og_a", subject: "u_alice" };

/** Export jobs in memory; `failSilentSince` behaves as its SQL does (only unfinished jobs silent since `before`). */
function setUp(jobs: ExportJobRecord[], nodes: ExportedNode[] = []) {
  const calls: string[] = [];
  const unused = () => Promise.reject(new Error("not used by these specs"));
  const exports: ExportRepository = {
    add: (record) => void (calls.push(`add ${record.exportJobId}`), jobs.push(record)),
    find: async (orgId, id) => jobs.find((j) => j.orgId === orgId && j.exportJobId === id) ?? null,
    updateUnfinished: unused,
    failSilentSince: async (id, before, error) => {
      calls.push(`failSilentSince ${id}`);
      for (const job of jobs) {
        if (job.exportJobId === id && (job.status === "pending" || job.status === "running") && job.heartbeat < before) Object.assign(job, { status: "failed", error, finished: new Date() });
      }
    },
    finishedBefore: unused,
    deleteJobs: unused,
    nodes: async (_orgId, ids) => nodes.filter((n) => ids.includes(n.nodeId)),
    filesBelow: unused,
  };
  const deps: ExportDeps = { uow: fixedUnitOfWork({ exports }), objects: {} as ObjectStore, logger: console as never };
  return { deps, calls };
}

function job(status: ExportStatus, silentForMs: number, orgId = "og_a"): ExportJobRecord {
  const heartbeat = new Date(Date.now() - silentForMs);
  return {
    exportJobId: "ex_1",
    orgId,
    status,
    nodeIds: ["fl_1"],
    objectKey: `${orgId}/exports/ex_1/export.zip`,
    fileCount: 1,
    totalBytes: "3",
    bytesUploaded: "0",
    error: null,
    created: heartbeat,
    createdBy: "u_alice",
    heartbeat,
    finished: null,
  };
}

describe("exportStatus", () => {
  it("records a job whose builder has been silent too long as interrupted", async () => {
    const { deps, calls } = setUp([job("running", STALE_AFTER_MS + 60_000)]);
    expect(await exportStatus(deps.uow, alice, "ex_1")).toMatchObject({ status: "failed", error: INTERRUPTED_ERROR });
    expect(calls).toEqual(["failSilentSince ex_1"]);
  });

  it.each<[ExportStatus, number]>([
    ["running", 1_000],
    ["pending", 0],
    ["completed", STALE_AFTER_MS + 60_000],
    ["failed", STALE_AFTER_MS + 60_000],
  ])("leaves a %s job silent for %p ms as it is", async (status, silentForMs) => {
    const { deps, calls } = setUp([job(status, silentForMs)]);
    expect((await exportStatus(deps.uow, alice, "ex_1")).status).toBe(status);
    expect(calls).toEqual([]);
  });

  it("is a 404 for another org's job or a caller who can read no org", async () => {
    const { deps } = setUp([job("completed", 0, "og_b")]);
    await expect(exportStatus(deps.uow, alice, "ex_1")).rejects.toThrow("export job 'ex_1' not found");
    await expect(exportStatus(deps.uow, { orgId: undefined, subject: "u" }, "ex_1")).rejects.toThrow("export job 'ex_1' not found");
  });
});

describe("exportFiles", () => {
  const file: ExportedNode = { nodeId: "fl_1", fsType: "file", associationId: "ds_1", relativePath: "a.txt", uri: "s3://b/og_a/ds_1/a.txt", size: "3", modified: new Date() };

  it("refuses an empty request and records no job", async () => {
    const { deps, calls } = setUp([], [file]);
    await expect(exportFiles(deps, alice, [])).rejects.toThrow("node_ids: must name at least one file or directory");
    expect(calls).toEqual([]);
  });

  it("refuses a node it cannot find, naming its index, and records no job", async () => {
    const { deps, calls } = setUp([], [file]);
    await expect(exportFiles(deps, alice, ["fl_1", "fl_gone"])).rejects.toThrow("node_ids[1]: file or directory 'fl_gone' not found");
    expect(calls).toEqual([]);
  });
});
