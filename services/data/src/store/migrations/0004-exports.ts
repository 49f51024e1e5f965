import { Migration } from "@mikro-orm/migrations";

/**
 * Export jobs: one row per export_files call, written by the background archive builder as it
 * goes. `heartbeat` moves while a builder works on the job, so a job whose builder died with its
 * process can be told from a slow one.
 */
export class Migration0004Exports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table export_jobs (
        export_job_id text primary key,
        org_id text not null,
        status text not null check (status in ('pending', 'running', 'completed', 'failed')),
        node_ids text[] not null,
        object_key text not null,
        file_count integer not null,
        total_bytes bigint not null default 0,
        bytes_uploaded bigint not null default 0,
        error text,
        created timestamptz not null,
        created_by text not null,
        heartbeat timestamptz not null,
        finished timestamptz
      );
      create index export_jobs_org_created_idx on export_jobs (org_id, created desc);
    `);
  }
}
