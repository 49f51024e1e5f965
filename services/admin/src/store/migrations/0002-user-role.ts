import { Migration } from "@mikro-orm/migrations";

/** The role every member holds is named `user`, as the client SDK names it (it was `member`). */
export class Migration0002UserRole extends Migration {
  override async up(): Promise<void> {
    this.addSql("update memberships set roles = array_replace(roles, 'member', 'user') where 'member' = any (roles);");
  }
}
