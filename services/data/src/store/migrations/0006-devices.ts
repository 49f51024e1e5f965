import { Migration } from "@mikro-orm/migrations";

/**
 * Devices and device types. A device's `device_id` is unique in its org; its files are keyed by
 * its `universal_device_id`. The `seq` identity columns order listings newest first and are what
 * their page tokens carry. A device type in use cannot be deleted (checked first, for the 409; the
 * foreign key is the backstop).
 */
export class Migration0006Devices extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table device_types (
        device_type_id text primary key,
        org_id text not null,
        name text not null,
        description text,
        metadata jsonb not null default '{}',
        tags text[] not null default '{}',
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        seq bigint generated always as identity
      );
      create index device_types_org_seq_idx on device_types (org_id, seq desc);
      create table devices (
        universal_device_id text primary key,
        org_id text not null,
        device_id text not null,
        device_type_id text references device_types (device_type_id),
        metadata jsonb not null default '{}',
        custom_fields jsonb not null default '{}',
        tags text[] not null default '{}',
        created timestamptz not null,
        created_by text not null,
        modified timestamptz not null,
        modified_by text not null,
        seq bigint generated always as identity
      );
      create unique index devices_org_device_idx on devices (org_id, device_id);
      create index devices_org_seq_idx on devices (org_id, seq desc);
      create index devices_type_seq_idx on devices (device_type_id, seq desc) where device_type_id is not null;
      create index upload_transactions_open_idx on upload_transactions (association_id) where status = 'open';
    `);
  }
}
