import { Code, ConnectError } from "@connectrpc/connect";
import { createTestDatabase } from "@hangar/test-harness";
import { openDatabase, type Orm } from "../db";
import { createLogger } from "../telemetry";
import { startConsumer, type RunningConsumer } from "./consumer";
import { createInProcessTransport } from "./in-process-transport";
import { eventEntities, eventTablesMigration } from "./tables";

// What a consumer does with an event whose handler keeps failing, on a real PostgreSQL: a fault of
// the event goes to the dead letters after bounded retries; an outage (the database unreachable, or
// a service the handler asks answering UNAVAILABLE) does not.

const logger = createLogger("test", "silent");
let orm: Orm;
const transport = createInProcessTransport();
let consumer: RunningConsumer;
let failure: Error;

beforeAll(async () => {
  orm = await openDatabase({ url: await createTestDatabase(), schema: "svc", entities: eventEntities, migrations: [eventTablesMigration], logger });
  consumer = await startConsumer({
    name: "svc.test",
    topics: ["things"],
    orm,
    transport,
    logger,
    retryDelayMs: 1,
    handler: () => Promise.reject(failure),
  });
});
afterAll(async () => {
  await consumer?.stop();
  await orm?.close();
});

const event = (eventId: string) => ({ eventId, topic: "things", key: "k", payload: Uint8Array.from([1]), headers: {} });
const deadLetters = async () => (await orm.em.fork().getConnection().execute("select event_id from svc.dead_letters order by event_id")).map((r) => (r as { event_id: string }).event_id);

test("an event whose handler keeps failing goes to the dead letters", async () => {
  failure = new Error("cannot apply this event");
  await transport.publish([event("poison")]);
  expect(await deadLetters()).toEqual(["poison"]);
});

test("an event whose handler keeps failing because the database is unreachable is handed back, not dead-lettered", async () => {
  failure = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
  await expect(transport.publish([event("outage")])).rejects.toThrow("ECONNREFUSED");
  expect(await deadLetters()).toEqual(["poison"]);
});

test("an event whose handler keeps failing because a service it asks is unavailable is handed back, not dead-lettered", async () => {
  failure = new ConnectError("upstream connect error", Code.Unavailable);
  await expect(transport.publish([event("peer-away")])).rejects.toThrow("upstream connect error");
  expect(await deadLetters()).toEqual(["poison"]);
});

test("a service refusing the event's request (not an outage) still sends it to the dead letters", async () => {
  failure = new ConnectError("action not found", Code.NotFound);
  await transport.publish([event("refused")]);
  expect(await deadLetters()).toEqual(["poison", "refused"]);
});

test("an event the consumer does not accept is acknowledged without running its handler or recording it; one it cannot read goes to the handler", async () => {
  const handled: string[] = [];
  const picky = await startConsumer({
    name: "svc.picky",
    topics: ["picky"],
    orm,
    transport,
    logger,
    accepts: (message) => {
      if (message.payload[0] === 2) throw new Error("cannot read this payload");
      return message.payload[0] === 1;
    },
    handler: async (_em, message) => void handled.push(message.eventId),
  });
  try {
    const skipped = { ...event("skipped"), topic: "picky", payload: Uint8Array.from([0]) };
    const wanted = { ...event("wanted"), topic: "picky", key: "k2" };
    // Its handler is the one to fail on it (and dead-letter it), as without `accepts`.
    const unreadable = { ...event("unreadable"), topic: "picky", key: "k3", payload: Uint8Array.from([2]) };
    await transport.publish([skipped, wanted, unreadable]);
    expect([...handled].sort()).toEqual(["unreadable", "wanted"]);
    const recorded = await orm.em.fork().getConnection().execute("select event_id from svc.processed_events where consumer = 'svc.picky' order by event_id");
    expect(recorded.map((r) => (r as { event_id: string }).event_id)).toEqual(["unreadable", "wanted"]);
  } finally {
    await picky.stop();
  }
});
