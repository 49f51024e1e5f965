import { EntitySchema } from "@mikro-orm/core";
import { Migration } from "@mikro-orm/migrations";
import { createTestDatabase } from "@hangar/test-harness";
import { createLogger } from "../telemetry";
import { openDatabase, type Orm } from "./database";

interface Tagged {
  id: number;
  tags: string[];
}

const TaggedSchema = new EntitySchema<Tagged>({
  name: "Tagged",
  tableName: "tagged",
  properties: { id: { type: "number", primary: true }, tags: { type: "string[]" } },
});

class CreateTagged extends Migration {
  override async up(): Promise<void> {
    this.addSql("create table tagged (id int primary key, tags text[] not null)");
  }
}

let orm: Orm;

beforeAll(async () => {
  orm = await openDatabase({
    url: await createTestDatabase(),
    schema: "arrays",
    entities: [TaggedSchema],
    migrations: [{ name: "0001-tagged", class: CreateTagged }],
    logger: createLogger("test", "silent"),
  });
});
afterAll(() => orm?.close());

test("a string[] property stores every element exactly: blanks, NULL, commas, quotes, braces and backslashes", async () => {
  const tags = [" ", "NULL", "null", "a,b", " padded ", 'say "hi"', "{}", "", "back\\slash", "../../etc/passwd"];
  const em = orm.em.fork();
  em.create(TaggedSchema, { id: 1, tags });
  await em.flush();
  const reloaded = await orm.em.fork().findOneOrFail(TaggedSchema, { id: 1 });
  expect(reloaded.tags).toEqual(tags);
});

test("an update of a string[] property stores every element exactly too", async () => {
  const em = orm.em.fork();
  em.create(TaggedSchema, { id: 2, tags: ["a"] });
  await em.flush();
  const row = await em.findOneOrFail(TaggedSchema, { id: 2 });
  row.tags = ["a", " ", "NULL"];
  await em.flush();
  expect((await orm.em.fork().findOneOrFail(TaggedSchema, { id: 2 })).tags).toEqual(["a", " ", "NULL"]);
});
