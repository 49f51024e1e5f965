import { EntitySchema } from "@mikro-orm/core";
import { timestampFromRow } from "@hangar/shared";
import type { DatasetRecord, DatasetRelationRecord } from "../domain/datasets";

export const Dataset = new EntitySchema<DatasetRecord>({
  name: "Dataset",
  tableName: "datasets",
  properties: {
    datasetId: { type: "string", primary: true },
    orgId: { type: "string" },
    name: { type: "string", nullable: true },
    description: { type: "string", nullable: true },
    deviceId: { type: "string", nullable: true },
    metadata: { type: "json" },
    customFields: { type: "json" },
    tags: { type: "string[]" },
    created: { type: "Date" },
    createdBy: { type: "string" },
    modified: { type: "Date" },
    modifiedBy: { type: "string" },
    serviceRecordVersion: { type: "integer" },
  },
});

export const DatasetRelation = new EntitySchema<DatasetRelationRecord>({
  name: "DatasetRelation",
  tableName: "dataset_relations",
  properties: {
    datasetId: { type: "string", primary: true },
    subject: { type: "string", primary: true },
    relation: { type: "string", primary: true },
  },
});

export const dataEntities = [Dataset, DatasetRelation];

/** Maps a raw `datasets` row (as the pg driver returns it) to a DatasetRecord, for reads that skip the ORM. */
export function datasetFromRow(row: Record<string, unknown>): DatasetRecord {
  return {
    datasetId: row.dataset_id as string,
    orgId: row.org_id as string,
    name: row.name as string | null,
    description: row.description as string | null,
    deviceId: row.device_id as string | null,
    metadata: row.metadata as DatasetRecord["metadata"],
    customFields: row.custom_fields as DatasetRecord["customFields"],
    tags: row.tags as string[],
    created: timestampFromRow(row.created),
    createdBy: row.created_by as string,
    modified: timestampFromRow(row.modified),
    modifiedBy: row.modified_by as string,
    serviceRecordVersion: row.service_record_version as number,
  };
}
