import { queryPrepared, type EntityManager } from "@hangar/shared";
import type { OwnedRecord, RecordOwnerRepository } from "../domain/repositories";

/** The primary-key lookup of each record's org (a prepared statement each: by-id calls are hot). */
const ORG_OF: Record<OwnedRecord, string> = {
  dataset: "select org_id from datasets where dataset_id = $1",
  file: "select org_id from fs_nodes where node_id = $1",
  upload: "select org_id from upload_transactions where transaction_id = $1",
  collection: "select org_id from collections where collection_id = $1",
};

/** The owners of the data service's records, read by primary key. */
export class RecordOwnerStore implements RecordOwnerRepository {
  constructor(readonly em: EntityManager) {}

  async orgOf(kind: OwnedRecord, id: string): Promise<string | undefined> {
    const rows = await queryPrepared(this, ORG_OF[kind], [id]);
    return rows[0]?.org_id as string | undefined;
  }
}
