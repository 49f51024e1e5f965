import { createLogger, openDatabase, type EntityManager, type Orm } from "@hangar/shared";
import { createTestDatabase } from "@hangar/test-harness";
import type { TopicRow } from "../domain/topics";
import { dataEntities } from "./entities";
import { dataMigrations } from "./migrations";
import { TopicStore } from "./topic-store";

const ORG = "og_counts";
let orm: Orm;
let serial = 0;

beforeAll(async () => {
  orm = await openDatabase({ url: await createTestDatabase(), schema: "data", entities: dataEntities, migrations: dataMigrations, logger: createLogger("test", "silent") });
});

afterAll(() => orm.close());

function topicOf(associationId: string): TopicRow {
  const now = new Date();
  const n = ++serial;
  return {
    topicId: `tp_counts_${n}`,
    orgId: ORG,
    associationType: "dataset",
    associationId,
    associationVersion: null,
    topicName: `/topic_${n}`,
    schemaName: null,
    schemaChecksum: null,
    schemaId: null,
    startTime: null,
    endTime: null,
    messageCount: null,
    metadata: {},
    defaultRepresentationId: null,
    created: now,
    createdBy: "test",
    modified: now,
    modifiedBy: "test",
  };
}

/** A transaction held open until `finish` resolves; `step` runs a store call in it. */
function openTransaction(): { step: (work: (store: TopicStore) => Promise<unknown>) => Promise<void>; commit: () => Promise<void> } {
  const steps: { work: (store: TopicStore) => Promise<unknown>; done: (error?: unknown) => void }[] = [];
  let wake = () => {};
  let finishing = false;
  const transaction = orm.em.fork().transactional(async (em: EntityManager) => {
    const store = new TopicStore(em);
    for (;;) {
      const next = steps.shift();
      if (next) {
        await next.work(store).then(() => next.done(), next.done);
        continue;
      }
      if (finishing) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  });
  return {
    step: (work) =>
      new Promise<void>((resolve, reject) => {
        steps.push({ work, done: (error) => (error === undefined ? resolve() : reject(error as Error)) });
        wake();
      }),
    commit: () => {
      finishing = true;
      wake();
      return transaction;
    },
  };
}

const counted = (associationId: string) => new TopicStore(orm.em.fork()).count(ORG, associationId);
const counterRows = async (associationId: string) =>
  Number((await orm.em.fork().execute<{ n: string }[]>("select count(*) as n from association_topic_counts where association_id = ?", [associationId]))[0]!.n);
/** Rejects after `ms`: a write that waits on another transaction's lock would hit it. */
const within = <T>(ms: number, work: Promise<T>) =>
  Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))]);

describe("association topic counts", () => {
  test("two transactions writing topics into two associations in opposite orders at the same time both commit, counted", async () => {
    const [first, second] = [openTransaction(), openTransaction()];
    await first.step((store) => store.insert(topicOf("ds_left")));
    await second.step((store) => store.insert(topicOf("ds_right")));
    // Each now writes the association the other has written: with one locked counter row per association, a deadlock.
    await within(5_000, Promise.all([first.step((store) => store.insert(topicOf("ds_right"))), second.step((store) => store.insert(topicOf("ds_left")))]));
    await Promise.all([first.commit(), second.commit()]);
    expect([await counted("ds_left"), await counted("ds_right")]).toEqual([2, 2]);
  });

  test("a second transaction's topic write into an association does not wait for the first's commit", async () => {
    const [first, second] = [openTransaction(), openTransaction()];
    await first.step((store) => store.insert(topicOf("ds_shared")));
    await within(5_000, second.step((store) => store.insert(topicOf("ds_shared"))));
    await second.commit();
    expect(await counted("ds_shared")).toBe(1);
    await first.commit();
    expect(await counted("ds_shared")).toBe(2);
  });

  test("counts inserts, batch upserts and deletions, and keeps an association's counter to one row", async () => {
    const store = new TopicStore(orm.em.fork());
    const rows = Array.from({ length: 30 }, () => topicOf("ds_many"));
    for (const row of rows.slice(0, 20)) await store.insert(row);
    expect(await store.saveAll(rows.slice(20))).toBe(true);
    await store.remove(rows[0]!.topicId);
    expect([await counted("ds_many"), await counterRows("ds_many")]).toEqual([29, 1]);
    for (const row of rows.slice(1)) await store.remove(row.topicId);
    expect([await counted("ds_many"), await counterRows("ds_many")]).toEqual([0, 0]);
  });

  test("counts one statement's topics of many associations apiece, and a restated batch (an update) not again", async () => {
    const store = new TopicStore(orm.em.fork());
    const rows = Array.from({ length: 60 }, (_, i) => topicOf(`ds_batch_${i % 3}`));
    expect(await store.saveAll(rows)).toBe(true);
    expect(await store.saveAll(rows.map((row) => ({ ...row, messageCount: 5n })))).toBe(true);
    expect(await Promise.all([0, 1, 2].map((i) => counted(`ds_batch_${i}`)))).toEqual([20, 20, 20]);
    expect(await Promise.all([0, 1, 2].map((i) => counterRows(`ds_batch_${i}`)))).toEqual([1, 1, 1]);
  });
});
