import { Migration } from "@mikro-orm/migrations";

/**
 * The membership audit trail (issue 9): who added (created or added back), removed or changed the
 * roles of whom in an existing org, and when.
 * A removal is recorded here rather than by keeping the membership row, so that every membership
 * check stays a plain lookup; it also lets a removed user be added back.
 */
export class Migration0003MembershipAudit extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table membership_audit (
        audit_id bigserial primary key,
        org_id text not null references orgs (org_id) on delete cascade deferrable initially deferred,
        user_id text not null,
        action text not null,
        actor text not null,
        roles_before text[] not null,
        roles_after text[] not null,
        at timestamptz not null default now()
      );
      create index membership_audit_member_idx on membership_audit (org_id, user_id);
    `);
  }
}
