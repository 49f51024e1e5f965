import { create, fromJson, toJson, ScalarType, type DescMessage, type JsonObject, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { ListValueSchema, timestampFromDate, type ListValue } from "@bufbuild/protobuf/wkt";
import { DatasetSchema, FileSchema, RobotEventSchema, SessionSchema, type CollectionChangeRecordSchema, type CollectionSchema } from "@hangar/shared/proto/data";
import type { CollectionContents } from "../domain/collection-use-cases";
import type { MemberRecord } from "../domain/collection-members";
import type { CollectionChangeSet, CollectionRecord, CollectionVersion, ResourceRef } from "../domain/collections";
import { fileToProto } from "./file-mappers";
import { datasetToProto } from "../domain/dataset-proto";
import { robotEventToProto } from "./robot-event-handlers";
import { sessionToProto } from "./session-mappers";

/** A collection and its members (as its content mode shows them) to the wire record. */
export function collectionToProto(record: CollectionRecord, contents: CollectionContents): MessageInitShape<typeof CollectionSchema> {
  return {
    collectionId: record.collectionId,
    orgId: record.orgId,
    ...(record.name !== null ? { name: record.name } : {}),
    ...(record.description !== null ? { description: record.description } : {}),
    resourceType: record.resourceType,
    ...resourcesOf(contents),
    resourceCount: BigInt(record.resourceCount),
    tags: record.tags,
    customFields: record.customFields,
    version: BigInt(record.version),
    created: timestampFromDate(record.created),
    createdBy: record.createdBy,
    updated: timestampFromDate(record.updated),
    updatedBy: record.updatedBy,
  };
}

/** A version's change record to the wire. */
export function changeToProto(row: CollectionVersion): MessageInitShape<typeof CollectionChangeRecordSchema> {
  const change = row.changeSet as CollectionChangeSet;
  return {
    collectionId: row.collectionId,
    fromVersion: BigInt(row.version - 1),
    toVersion: BigInt(row.version),
    applied: timestampFromDate(row.applied),
    appliedBy: row.appliedBy,
    changeSet: {
      addedResources: change.addedResources.map(refToProto),
      removedResources: change.removedResources.map(refToProto),
      addedTags: change.addedTags,
      removedTags: change.removedTags,
      fieldChanges: change.fieldChanges,
    },
  };
}

function refToProto(ref: ResourceRef) {
  return { resourceType: ref.resourceType, resourceId: ref.resourceId, ...(ref.resourceVersion !== null ? { resourceVersion: ref.resourceVersion } : {}) };
}

function refJson(ref: ResourceRef): JsonObject {
  return { resource_type: ref.resourceType, resource_id: ref.resourceId, resource_version: ref.resourceVersion };
}

function resourcesOf(contents: CollectionContents): { resources: Record<string, ListValue>; missing: Record<string, ListValue> } {
  switch (contents.mode) {
    case "summary_only":
      return { resources: {}, missing: {} };
    case "references":
      return { resources: byType(contents.refs.map((ref) => [ref.resourceType, refJson(ref)])), missing: {} };
    case "full":
      return {
        resources: byType(contents.present.map((member) => [member.resourceType, memberJson(member)])),
        missing: byType(contents.missing.map((ref) => [ref.resourceType, refJson(ref)])),
      };
  }
}

function byType(entries: [string, JsonValue][]): Record<string, ListValue> {
  const grouped: Record<string, JsonValue[]> = {};
  for (const [type, value] of entries) (grouped[type] ??= []).push(value);
  return Object.fromEntries(Object.entries(grouped).map(([type, values]) => [type, fromJson(ListValueSchema, values)]));
}

/** A member's record as its own read answers it (snake_case fields, every field emitted). */
function memberJson(member: MemberRecord): JsonValue {
  switch (member.resourceType) {
    case "dataset":
      return recordJson(DatasetSchema, datasetToProto(member.record));
    case "file":
      return recordJson(FileSchema, fileToProto(member.record));
    case "session":
      return recordJson(SessionSchema, sessionToProto(member.record));
    case "event":
      return recordJson(RobotEventSchema, robotEventToProto(member.record));
  }
}

/**
 * A record as JSON inside a `ListValue`. protobuf's JSON writes 64-bit integers as strings; the
 * gateway writes them as numbers, so top-level ones are turned back into numbers here (exact up
 * to 2**53, which sizes, versions and counts stay under).
 */
function recordJson<Desc extends DescMessage>(schema: Desc, init: MessageInitShape<Desc>): JsonValue {
  const json = toJson(schema, create(schema, init), { useProtoFieldName: true, alwaysEmitImplicit: true }) as JsonObject;
  for (const field of schema.fields) {
    const is64 = field.fieldKind === "scalar" && [ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64].includes(field.scalar);
    const value = json[field.name];
    if (is64 && typeof value === "string" && Number.isSafeInteger(Number(value))) json[field.name] = Number(value);
  }
  return json;
}
