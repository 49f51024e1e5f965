import { Migration } from "@mikro-orm/migrations";
import { createTestDatabase } from "@hangar/test-harness";
import { createLogger } from "../telemetry";
import { openDatabase, type Orm } from "./database";

/** A migration that would fail if two processes ran it at once (the second create would collide). */
class CreateThings extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table things (id int primary key); select pg_sleep(0.2);");
  }
}

test("replicas that start together apply each migration once, one after the other", async () => {
  const url = await createTestDatabase();
  const open = () =>
    openDatabase({ url, schema: "svc", entities: [], migrations: [{ name: "0001-things", class: CreateThings }], logger: createLogger("test", "silent") });
  const orms: Orm[] = await Promise.all([open(), open(), open()]);
  try {
    const applied = await orms[0]!.em.getConnection().execute("select name from svc.schema_migrations");
    expect(applied.map((row) => (row as { name: string }).name)).toEqual(["0001-things"]);
  } finally {
    await Promise.all(orms.map((orm) => orm.close()));
  }
});
