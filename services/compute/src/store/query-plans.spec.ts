import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { createLogger, openDatabase, type EntityManager, type Orm } from "@hangar/shared";
import { createTestDatabase, nullabilityProblems, planProblems } from "@hangar/test-harness";
import { actionCatalog } from "../domain/action-search";
import { invocationCatalog, planInvocationSearch } from "../domain/invocation-search";
import { triggerCatalog } from "../domain/triggers";
import { computeEntities } from "./entities";
import { InvocationStore } from "./invocation-store";
import { computeMigrations } from "./migrations";

// Invocations of many actions interleaved in time, as a busy org runs them; a rare status.
const INVOCATIONS = 100_000;
const ACTIONS = 50;
const ORG = "org_a";
const RARE_STATUS = 5;

let orm: Orm;
const problems: string[] = [];

beforeAll(async () => {
  orm = await openDatabase({ url: await createTestDatabase(), schema: "compute", entities: computeEntities, migrations: computeMigrations, logger: createLogger("test", "silent") });
  await seed(orm.em.fork());
}, 120_000);

afterAll(() => orm.close());

beforeEach(() => problems.splice(0));

// A keyset page trusts these declarations to leave out the null arm: a wrong one skips null rows.
test("the compute service's catalogs declare exactly their tables' NOT NULL columns", async () => {
  const em = orm.em.fork();
  const found = await nullabilityProblems((q, p) => em.execute(q, p), "compute", [
    { name: "actions", catalog: actionCatalog, tables: { a: "actions" } },
    { name: "invocations", catalog: invocationCatalog, tables: { i: "invocations" } },
    { name: "triggers", catalog: triggerCatalog, tables: { t: "triggers" } },
  ]);
  expect(found).toEqual([]);
});

/** An entity manager whose every select is EXPLAIN ANALYZEd first; findings land in `problems`. */
function explaining(): EntityManager {
  const em = orm.em.fork();
  const execute = em.execute.bind(em);
  em.execute = (async (sql: string, params: unknown[] = []) => {
    if (/^\s*select/i.test(sql)) problems.push(...(await planProblems((q, p) => execute(q, p), { sql, params }, ["invocations"])));
    return execute(sql, params);
  }) as typeof em.execute;
  return em;
}

const spec = (condition: JsonValue | undefined, after?: string) => ({
  ...(condition !== undefined ? { condition: fromJson(ValueSchema, condition) } : {}),
  limit: 100n,
  ...(after ? { after } : {}),
});

/** Reads the first page and the page after its 50th row; both must scale with the page. */
async function firstAndDeep(condition: JsonValue | undefined): Promise<number[]> {
  const store = new InvocationStore(explaining());
  const plan = planInvocationSearch(spec(condition));
  const first = await store.search(ORG, plan);
  const middle = first.rows[49]!;
  const row = (await orm.em.fork().execute("select (extract(epoch from created) * 1000000)::bigint::text as k from invocations where invocation_id = ?", [middle.invocationId]))[0] as { k: string };
  const deep = await store.search(ORG, planInvocationSearch(spec(condition, plan.nextToken({ key: row.k, id: middle.invocationId }, true))));
  expect(deep.rows[0]!.invocationId).toBe(first.rows[50]!.invocationId);
  return [first.rows.length, deep.rows.length];
}

describe("invocation search plans at scale", () => {
  test("the org's invocations, newest first", async () => {
    expect(await firstAndDeep(undefined)).toEqual([100, 100]);
    expect(problems).toEqual([]);
  });

  test("one action's invocations, newest first", async () => {
    expect(await firstAndDeep({ field: "provenance.action.name", comparator: "EQUALS", value: "act_7" })).toEqual([100, 100]);
    expect(problems).toEqual([]);
  });

  test("one dataset's invocations, newest first", async () => {
    // Each dataset has 100 of the org's invocations, one in every thousand: the deep page is their last 50.
    expect(await firstAndDeep({ field: "data_source.data_source_id", comparator: "EQUALS", value: "ds_7" })).toEqual([100, 50]);
    expect(problems).toEqual([]);
  });

  test("invocations in a rare status, newest first", async () => {
    expect(await firstAndDeep({ field: "last_status", comparator: "EQUALS", value: RARE_STATUS })).toEqual([100, 100]);
    expect(problems).toEqual([]);
  });
});

async function seed(em: EntityManager): Promise<void> {
  await em.execute(`
    insert into invocations (invocation_id, org_id, action_org_id, action_name, action_digest, data_source_type, data_source_id,
      compute_requirements, container_parameters, source_type, source_id, created_by, timeout, last_status, status_history, created)
    select 'iv_' || lpad(i::text, 6, '0'), '${ORG}', '${ORG}', 'act_' || (i % ${ACTIONS}), 'd', 'Dataset', 'ds_' || (i % 1000),
      '{}', '{}', 'Manual', 'u', 'u', 30, case when i % 100 = 0 then ${RARE_STATUS} else 6 end, '[]',
      timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second'
    from generate_series(1, ${INVOCATIONS}) i;
    analyze invocations;
  `);
}
