import { Migration } from "@mikro-orm/migrations";

/**
 * Deleted owners of files (datasets, devices, device types). A row is written in the deleting
 * transaction and kept: reads leave out the nodes of a deleted association (a primary-key probe),
 * so its files vanish at once however many there are, and stay invisible should a racing write
 * land in it later. Rows with `finished` null are the background cleanup's queue.
 */
export class Migration0007AssociationDeletions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table association_deletions (
        association_id text primary key,
        org_id text not null,
        association_type text not null,
        requested timestamptz not null,
        requested_by text not null,
        finished timestamptz
      );
      create index association_deletions_queue_idx on association_deletions (requested, association_id) where finished is null;
      create index upload_transactions_association_idx on upload_transactions (association_id);
    `);
  }
}
