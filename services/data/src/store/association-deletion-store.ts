import { textArrayLiteral, type EntityManager } from "@hangar/shared";
import type { AssociationDeletionRepository, DeletedAssociation, NodeBatch, TransactionBatch } from "../domain/association-cleanup";
import { FileStore } from "./file-store";

/**
 * The deletion of what owns files (a dataset, device or device type): recorded in the deleting
 * transaction, which hides its files and queues the rest for the background cleanup, which works
 * through it here one batch per transaction. Every query touches at most one batch of rows.
 */
export class AssociationDeletionStore implements AssociationDeletionRepository {
  private readonly files: FileStore;

  constructor(readonly em: EntityManager) {
    this.files = new FileStore(em);
  }

  /**
   * In the caller's transaction: aborts the association's open uploads and records the deletion,
   * which hides all its nodes from every read on commit (see deleted-associations.ts) and queues
   * its cleanup. Both are a few rows whatever the number of files. An upload being completed
   * holds its transaction's row, so this waits for it (its files then go with the rest), or the
   * completion waits for this and finds the transaction aborted; other writes are ordered by the
   * path lock (FileStore.lockAssociation). Recording twice is harmless.
   */
  async retire(association: DeletedAssociation): Promise<void> {
    await this.em.execute("update upload_transactions set status = 'aborted' where association_id = ? and status = 'open'", [association.associationId]);
    // Writes holding the path lock finish first (their files then go with the rest); later ones see the record and stop.
    await this.files.lockPaths(association.associationId);
    await this.em.execute(
      `insert into association_deletions (association_id, org_id, association_type, requested, requested_by) values (?, ?, ?, now(), ?)
       on conflict (association_id) do nothing`,
      [association.associationId, association.orgId, association.associationType, association.requestedBy],
    );
  }

  async claim(): Promise<string | null> {
    const rows = await this.em.execute<{ association_id: string }[]>(
      "select association_id from association_deletions where finished is null order by requested, association_id limit 1 for update skip locked",
    );
    return rows[0]?.association_id ?? null;
  }

  async nodeBatch(associationId: string, limit: number): Promise<NodeBatch> {
    const rows = await this.em.execute<{ node_id: string; uris: string[] }[]>(
      `select n.node_id, array_remove(array_prepend(n.uri, array(select v.snapshot->>'uri' from file_versions v where v.file_id = n.node_id)), null) as uris
       from fs_nodes n where n.association_id = ? limit ?`,
      [associationId, limit],
    );
    return { ids: rows.map((r) => r.node_id), uris: rows.flatMap((r) => r.uris) };
  }

  async deleteNodes(ids: string[]): Promise<void> {
    const literal = textArrayLiteral(ids);
    await this.em.execute("delete from file_versions where file_id = any(?::text[])", [literal]);
    await this.em.execute("delete from fs_nodes where node_id = any(?::text[])", [literal]);
  }

  async transactionBatch(associationId: string, limit: number): Promise<TransactionBatch> {
    const rows = await this.em.execute<{ transaction_id: string; keys: string[] }[]>(
      `select t.transaction_id, array(select i.object_key from upload_items i where i.transaction_id = t.transaction_id) as keys
       from upload_transactions t where t.association_id = ? limit ?`,
      [associationId, limit],
    );
    return { ids: rows.map((r) => r.transaction_id), objectKeys: rows.flatMap((r) => r.keys) };
  }

  async deleteTransactions(ids: string[]): Promise<void> {
    const literal = textArrayLiteral(ids);
    await this.em.execute("delete from upload_items where transaction_id = any(?::text[])", [literal]);
    await this.em.execute("delete from upload_transactions where transaction_id = any(?::text[])", [literal]);
  }

  unreferencedKeys(uris: string[]): Promise<string[]> {
    return this.files.unreferencedKeys(uris);
  }

  /** Ends the cleanup; the row stays, so nodes that a racing write might still add stay hidden. */
  async finish(associationId: string): Promise<void> {
    await this.em.execute("update association_deletions set finished = now() where association_id = ?", [associationId]);
  }
}
