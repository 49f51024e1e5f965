import type { DatasetRecord } from "./datasets";
import type { FsNodeRow } from "./file-records";
import { resourceKey, type ResourceRef } from "./collections";
import type { DataRepositories } from "./repositories";
import type { RobotEventWithAssociations } from "./robot-events";
import type { SessionRecord } from "./sessions";

/** What reading the members of a collection reaches: the resources a collection may hold. */
export type MemberRepositories = Pick<DataRepositories, "datasets" | "files" | "sessions" | "robotEvents">;

/** A member resource as it is now. */
export type MemberRecord =
  | { resourceType: "dataset"; record: DatasetRecord }
  | { resourceType: "file"; record: FsNodeRow }
  | { resourceType: "session"; record: SessionRecord }
  | { resourceType: "event"; record: RobotEventWithAssociations };

/**
 * The resources of the org that `refs` name and that exist, by `resourceKey`: one query per type for
 * datasets, files and sessions, one read per event. A file is a file node of a dataset that still exists.
 */
export async function loadMembers(r: MemberRepositories, orgId: string, refs: readonly ResourceRef[]): Promise<Map<string, MemberRecord>> {
  const idsOf = (type: string) => refs.filter((ref) => ref.resourceType === type).map((ref) => ref.resourceId);
  const found: MemberRecord[] = [];
  for (const id of idsOf("dataset")) {
    const record = await r.datasets.read(orgId, id);
    if (record) found.push({ resourceType: "dataset", record });
  }
  const files = idsOf("file");
  if (files.length > 0) {
    for (const record of (await r.files.nodesByIds(orgId, files)).values()) if (record.fsType === "file") found.push({ resourceType: "file", record });
  }
  const sessions = idsOf("session");
  if (sessions.length > 0) for (const record of await r.sessions.findMany(orgId, sessions)) found.push({ resourceType: "session", record });
  for (const id of idsOf("event")) {
    const event = await r.robotEvents.find(orgId, id);
    if (event) found.push({ resourceType: "event", record: { event, associations: await r.robotEvents.associations(id) } });
  }
  return new Map(found.map((m) => [resourceKey({ resourceType: m.resourceType, resourceId: idOf(m) }), m]));
}

function idOf(member: MemberRecord): string {
  switch (member.resourceType) {
    case "dataset":
      return member.record.datasetId;
    case "file":
      return member.record.nodeId;
    case "session":
      return member.record.sessionId;
    case "event":
      return member.record.event.eventId;
  }
}
