import { ingestionOf, settleIngestion } from "./session-ingestion";
import type { SessionFileEntry, SessionRecord } from "./sessions";

const at = new Date("2026-01-01T00:00:00Z");

function session(changes: Partial<SessionRecord> = {}): SessionRecord {
  return {
    sessionId: "se_1",
    orgId: "og_1",
    name: null,
    description: null,
    metadata: {},
    customFields: {},
    tags: [],
    status: "in_progress",
    inactivityMinutes: null,
    completesAt: null,
    completedAt: null,
    completedBy: null,
    ingestedAt: null,
    ingestionCount: 0,
    minTimestampNs: null,
    maxTimestampNs: null,
    created: at,
    createdBy: "u",
    modified: at,
    modifiedBy: "u",
    ...changes,
  };
}

function file(fileId: string, ingestionStatus: string, skipped = false): SessionFileEntry {
  return {
    sessionId: "se_1",
    fileId,
    dataRange: null,
    unixEpochOffsetNs: null,
    window: null,
    skippedAt: skipped ? at : null,
    skippedBy: skipped ? "u" : null,
    created: at,
    createdBy: "u",
    modified: at,
    modifiedBy: "u",
    datasetId: "ds_1",
    name: fileId,
    relativePath: fileId,
    origination: "",
    size: 0n,
    tags: [],
    ingestionStatus,
    fileCreated: at,
    fileModified: at,
  };
}

describe("ingestionOf", () => {
  const files = [file("a", "ingested"), file("b", "failed"), file("c", "not_ingested"), file("d", "ingesting"), file("e", "failed", true)];

  it("counts each kind of file; a skipped file counts as skipped whatever its status", () => {
    expect(ingestionOf(session(), files)).toMatchObject({ state: "in_progress", ingestedCount: 1, failedCount: 1, notIngestableCount: 1, pendingCount: 1, skippedCount: 1 });
    expect(ingestionOf(session(), files).pending.map((f) => f.fileId)).toEqual(["d"]);
  });

  it("a complete session is processing while files are pending or failed, else ingested", () => {
    expect(ingestionOf(session({ status: "complete" }), files).state).toBe("processing");
    expect(ingestionOf(session({ status: "complete" }), [file("a", "ingested"), file("b", "failed", true)]).state).toBe("ingested");
  });
});

describe("settleIngestion", () => {
  it("records the first time a complete session is ingested, once", async () => {
    const record = session({ status: "complete" });
    const repository = { files: async () => [file("a", "ingested")] };
    await settleIngestion(repository, record, at);
    await settleIngestion(repository, record, new Date(at.getTime() + 1));
    expect([record.ingestedAt, record.ingestionCount]).toEqual([at, 1]);
  });

  it("leaves a session still awaiting files alone", async () => {
    const record = session({ status: "complete" });
    await settleIngestion({ files: async () => [file("a", "ingesting")] }, record, at);
    expect([record.ingestedAt, record.ingestionCount]).toEqual([null, 0]);
  });
});
