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
  const em = orm.em.fork();
  recordEvent(em, { topic: "things", key, payload: Uint8Array.from([1]) });
  await em.flush();
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
