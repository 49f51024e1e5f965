import { Migration } from "@mikro-orm/migrations";

/**
 * Deleting what owns files (a dataset, device or device type) marks its files and directories
 * `deleted` in the deleting transaction, so every read (which all look for `available` or
 * `pending` nodes) stops seeing them at once, and queues an `association_deletions` row that the
 * background cleanup works off in batches: nodes, earlier versions, upload transactions, bytes.
 */
export class Migration0007AssociationDeletions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table fs_nodes drop constraint fs_nodes_status_check;
      alter table fs_nodes add constraint fs_nodes_status_check check (status in ('pending', 'available', 'deleted'));
      create table association_deletions (
        association_id text primary key,
        org_id text not null,
        association_type text not null,
        requested timestamptz not null,
        requested_by text not null
      );
      create index association_deletions_requested_idx on association_deletions (requested, association_id);
      create index upload_transactions_association_idx on upload_transactions (association_id);
    `);
  }
}
