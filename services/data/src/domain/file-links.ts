import { conflict, invalidArgument, newId, quoteValue, type UnitOfWork } from "@hangar/shared";
import type { ResolvedAssociation } from "./associations";
import { isLink, linkUri, newFsNode, type FsNodeRow } from "./file-records";
import type { FileRepository } from "./file-repositories";
import { checkAncestors } from "./imports";
import { checkUserPath } from "./paths";
import type { DataRepositories } from "./repositories";

/** A link as requested (create_link). */
export interface NewLink {
  relativePath: string;
  targetFileId: string;
  targetVersion?: bigint | undefined;
}

/**
 * create_link: adds a link at `relativePath` of a device's, device type's or org's files (a
 * dataset is a 400) to a file of the same org at a version (default its current one). A target
 * that is missing, another org's, a link, a directory, still uploading or without that version is
 * a 400 naming `target_file_id` (as the SDK documents); a taken path is a 409. One transaction.
 */
export async function createLink(uow: UnitOfWork<Pick<DataRepositories, "files">>, owner: ResolvedAssociation, link: NewLink, actor: string): Promise<FsNodeRow> {
  if (owner.associationType === "dataset") throw invalidArgument("association_id", "a dataset cannot hold links; link into a device's, device type's or org's files");
  const path = checkUserPath(link.relativePath, "relative_path");
  return uow.transaction(async ({ files }) => {
    const target = await pinnedTarget(files, owner.orgId, link);
    await files.lockAssociation(owner.associationId);
    if (await files.nodeAtPath(owner.associationId, path)) throw conflict(`relative_path: ${quoteValue(path)} already exists`);
    await checkAncestors(files, owner.associationId, path, "relative_path");
    const now = new Date();
    const node = newFsNode({
      nodeId: newId("fl"),
      orgId: owner.orgId,
      associationId: owner.associationId,
      associationType: owner.associationType,
      fsType: "file",
      relativePath: path,
      status: "available",
      uri: linkUri(target.nodeId, target.version),
      created: now,
      createdBy: actor,
    });
    node.parentId = await files.ensureParents(node, actor, now);
    await files.insertNodes([node]);
    return node;
  });
}

/** The target version a link pins; anything that cannot be pinned is a 400 naming `target_file_id`. */
async function pinnedTarget(files: FileRepository, orgId: string, link: NewLink): Promise<FsNodeRow> {
  const refuse = (problem: string) => invalidArgument("target_file_id", `${quoteValue(link.targetFileId)} ${problem}`);
  const file = await files.findNode(orgId, link.targetFileId);
  if (!file || file.fsType !== "file") throw refuse("is not a file of this org");
  if (isLink(file)) throw refuse("is a link; link to its target instead");
  if (link.targetVersion === undefined || String(link.targetVersion) === file.version) {
    if (file.status !== "available") throw refuse("is still being uploaded");
    return file;
  }
  const earlier = link.targetVersion > 0n && link.targetVersion < BigInt(file.version) ? await files.version(file.nodeId, link.targetVersion) : null;
  if (!earlier) throw invalidArgument("target_version", `file ${quoteValue(link.targetFileId)} has no version ${link.targetVersion}`);
  return { ...earlier, nodeId: file.nodeId, version: String(link.targetVersion) };
}
