import { createLogger, openDatabase, type Orm } from "@hangar/shared";
import { createTestDatabase, nullabilityProblems } from "@hangar/test-harness";
import { actionCatalog } from "../domain/action-search";
import { invocationCatalog } from "../domain/invocation-search";
import { triggerCatalog } from "../domain/triggers";
import { computeEntities } from "./entities";
import { computeMigrations } from "./migrations";

let orm: Orm;

beforeAll(async () => {
  orm = await openDatabase({ url: await createTestDatabase(), schema: "compute", entities: computeEntities, migrations: computeMigrations, logger: createLogger("test", "silent") });
}, 120_000);

afterAll(() => orm.close());

// A keyset page trusts these declarations to leave out the null arm: a wrong one skips null rows.
test("the compute service's catalogs declare exactly their tables' NOT NULL columns", async () => {
  const em = orm.em.fork();
  const problems = await nullabilityProblems((q, p) => em.execute(q, p), "compute", [
    { name: "actions", catalog: actionCatalog, tables: { a: "actions" } },
    { name: "invocations", catalog: invocationCatalog, tables: { i: "invocations" } },
    { name: "triggers", catalog: triggerCatalog, tables: { t: "triggers" } },
  ]);
  expect(problems).toEqual([]);
});
