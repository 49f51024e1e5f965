import type { EntityManager } from "@hangar/shared";
import type { ExportedNode, ExportJobRecord, ExportRepository } from "../domain/exports";
import { liveAssociationFilter } from "./deleted-associations";
import { ExportJob } from "./export-entities";
import { FsNode } from "./file-entities";
import { FileStore } from "./file-store";
import { TreeStore } from "./tree-store";

/** Jobs that a builder may still be working on. */
const UNFINISHED = ["pending", "running"] as const;

/** The export jobs repository over MikroORM, with the file reads an export needs. */
export class ExportStore implements ExportRepository {
  constructor(readonly em: EntityManager) {}

  /** Adds a new job; the next flush writes it. */
  add(row: ExportJobRecord): void {
    this.em.create(ExportJob, row);
  }

  /** Read afresh, never from the identity map: the job's builder and failSilentSince change it with direct updates. */
  find(orgId: string, exportJobId: string): Promise<ExportJobRecord | null> {
    return this.em.findOne(ExportJob, { exportJobId, orgId }, { refresh: true });
  }

  /**
   * Changes a job that is not finished yet. A finished job never changes again, so a late progress
   * write cannot undo a completion or a failure.
   */
  async updateUnfinished(exportJobId: string, changes: Partial<ExportJobRecord>): Promise<void> {
    await this.em.nativeUpdate(ExportJob, { exportJobId, status: { $in: [...UNFINISHED] } }, changes);
  }

  /** Fails an unfinished job whose builder has shown no sign of life since `before`. */
  async failSilentSince(exportJobId: string, before: Date, error: string): Promise<void> {
    await this.em.nativeUpdate(ExportJob, { exportJobId, status: { $in: [...UNFINISHED] }, heartbeat: { $lt: before } }, { status: "failed", error, finished: new Date() });
  }

  /** Up to `limit` finished (completed or failed) jobs that finished before `before`, oldest first. */
  finishedBefore(before: Date, limit: number): Promise<ExportJobRecord[]> {
    return this.em.find(ExportJob, { status: { $in: ["completed", "failed"] }, finished: { $lt: before } }, { orderBy: { finished: "asc" }, limit });
  }

  /** Deletes jobs by id. */
  async deleteJobs(exportJobIds: string[]): Promise<void> {
    await this.em.nativeDelete(ExportJob, { exportJobId: { $in: exportJobIds } });
  }

  /** The available nodes of the org among `nodeIds` (not those of a deleted owner). */
  nodes(orgId: string, nodeIds: string[]): Promise<ExportedNode[]> {
    return this.em.find(FsNode, { orgId, nodeId: { $in: nodeIds }, status: "available", ...liveAssociationFilter() });
  }

  /** The available files below a directory, sorted by path. */
  filesBelow(directory: ExportedNode): Promise<ExportedNode[]> {
    return new TreeStore(new FileStore(this.em)).below(directory.associationId, directory.relativePath, { filesOnly: true });
  }
}
