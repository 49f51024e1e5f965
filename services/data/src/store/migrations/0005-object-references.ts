import { Migration } from "@mikro-orm/migrations";

/**
 * Lookups of the files (current and earlier versions) that point at an object: links and imports
 * share objects, so bytes are deleted only once nothing points at them any more.
 */
export class Migration0005ObjectReferences extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index fs_nodes_uri_idx on fs_nodes (uri) where uri is not null;
      create index file_versions_uri_idx on file_versions ((snapshot->>'uri'));
    `);
  }
}
