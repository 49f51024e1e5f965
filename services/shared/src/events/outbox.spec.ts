import { createTestDatabase, waitFor } from "@hangar/test-harness";
import { openDatabase, type Orm } from "../db";
import { createLogger } from "../telemetry";
import { IN_PROCESS_PUBLISHES_AT_ONCE, createInProcessTransport } from "./in-process-transport";
import { recordEvent, startOutboxRelay } from "./outbox";
import { eventEntities, eventTablesMigration } from "./tables";
import type { EventMessage, EventTransport } from "./transport";

// The relay on a real PostgreSQL with a transport that lets publishes overlap (the in-process one):
// rows committed while a batch is still being handled go out at once, not after that batch.

const logger = createLogger("test", "silent");
let orm: Orm;

beforeAll(async () => {
  orm = await openDatabase({ url: await createTestDatabase(), schema: "relay", entities: eventEntities, migrations: [eventTablesMigration], logger });
});
afterAll(() => orm?.close());

async function record(key: string): Promise<void> {
  await orm.em.fork().transactional(async (em) => void recordEvent(em, { topic: "things", key, payload: Uint8Array.from([1]) }));
}

const unsent = async () => Number((await orm.em.fork().getConnection().execute("select count(*) as n from relay.outbox where published is null"))[0]!.n);

test("a batch committed while the last one is still handled is published beside it, up to the transport's publishes at once", async () => {
  const inProcess = createInProcessTransport();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const handled: string[] = [];
  await inProcess.subscribe({
    group: "g",
    topics: ["things"],
    handle: async (message: EventMessage) => {
      if (message.key === "slow") await held;
      handled.push(message.key);
    },
  });
  let mostAtOnce = 0;
  let underWay = 0;
  const transport: EventTransport = {
    ...inProcess,
    publish: async (messages) => {
      mostAtOnce = Math.max(mostAtOnce, ++underWay);
      try {
        await inProcess.publish(messages);
      } finally {
        underWay--;
      }
    },
  };
  await record("slow");
  const relay = startOutboxRelay({ orm, transport, logger, intervalMs: 20 });
  try {
    await waitFor("the first batch under way", async () => (mostAtOnce === 1 ? true : undefined), 10_000, 10);
    await record("quick");
    relay.wake();
    await waitFor("the second batch handled", async () => (handled.includes("quick") ? true : undefined), 10_000, 10);
    expect(handled).toEqual(["quick"]);
    expect(mostAtOnce).toBe(IN_PROCESS_PUBLISHES_AT_ONCE);
    release();
    await waitFor("both batches marked sent", async () => ((await unsent()) === 0 ? true : undefined), 10_000, 10);
    expect(handled).toEqual(["quick", "slow"]);
  } finally {
    release();
    await relay.stop();
  }
});

describe("recordEvent", () => {
  const event = (key: string, payload = [1]) => ({ topic: "recorded", key, payload: Uint8Array.from(payload) });
  const stored = async () =>
    (await orm.em.fork().execute<{ event_id: string; key: string; payload: Buffer; headers: object }[]>(
      "select event_id, key, payload, headers from relay.outbox where topic = 'recorded' order by seq",
    )).map((row) => ({ eventId: row.event_id, key: row.key, payload: [...row.payload], headers: row.headers }));
  beforeEach(() => orm.em.fork().execute("delete from relay.outbox where topic = 'recorded'"));

  test("writes a transaction's events in the order recorded when it commits, and not before", async () => {
    let seenInside: unknown[] = ["not read"];
    const ids = await orm.em.fork().transactional(async (em) => {
      const recorded = [recordEvent(em, event("first", [1, 2])), recordEvent(em, event("second", [3]))];
      seenInside = await stored();
      return recorded;
    });
    expect(seenInside).toEqual([]);
    expect(await stored()).toEqual([
      { eventId: ids[0], key: "first", payload: [1, 2], headers: {} },
      { eventId: ids[1], key: "second", payload: [3], headers: {} },
    ]);
  });

  test("writes a transaction's many events (12,000), all and in order", async () => {
    const keys = Array.from({ length: 12_000 }, (_, i) => `many-${i}`);
    await orm.em.fork().transactional(async (em) => void keys.forEach((key) => recordEvent(em, event(key))));
    expect((await stored()).map((e) => e.key)).toEqual(keys);
  });

  test("writes nothing when the transaction rolls back", async () => {
    await expect(
      orm.em.fork().transactional(async (em) => {
        recordEvent(em, event("undone"));
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await stored()).toEqual([]);
  });

  test("keeps transactions apart: each commits its own events", async () => {
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const first = orm.em.fork().transactional(async (em) => {
      recordEvent(em, event("held"));
      await firstHeld;
    });
    await orm.em.fork().transactional(async (em) => void recordEvent(em, event("quick")));
    expect((await stored()).map((e) => e.key)).toEqual(["quick"]);
    releaseFirst();
    await first;
    expect((await stored()).map((e) => e.key)).toEqual(["quick", "held"]);
  });

  test("refuses a nested transaction (its rollback could not drop the event), writing nothing", async () => {
    await orm.em.fork().transactional(async (em) => {
      await expect(em.transactional(async (nested) => void recordEvent(nested, event("nested")))).rejects.toThrow("in a nested transaction");
    });
    expect(await stored()).toEqual([]);
  });

  test("keeps the payload as it was when recorded", async () => {
    const payload = Uint8Array.from([7]);
    await orm.em.fork().transactional(async (em) => {
      recordEvent(em, { topic: "recorded", key: "copied", payload });
      payload[0] = 8;
    });
    expect((await stored()).map((e) => e.payload)).toEqual([[7]]);
  });

  test("refuses an entity manager outside a transaction, writing nothing", async () => {
    expect(() => recordEvent(orm.em.fork(), event("loose"))).toThrow("outside a transaction");
    expect(await stored()).toEqual([]);
  });
});
