import { createInProcessTransport, IN_PROCESS_HANDLERS_AT_ONCE } from "./in-process-transport";
import type { EventMessage } from "./transport";

// The embedded default's delivery order and concurrency: Kafka's guarantees (one key's events in
// order within a group), handlers of different keys and groups side by side, bounded.

const message = (key: string, n: number, topic = "things"): EventMessage => ({ eventId: `${key}-${n}`, topic, key, payload: new Uint8Array(), headers: {} });

/** A handler that records when each event starts and ends, taking `ms` each. */
function recorder(ms: number) {
  const log: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const handle = async (event: EventMessage) => {
    running++;
    mostAtOnce = Math.max(mostAtOnce, running);
    log.push(`start ${event.eventId}`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    log.push(`end ${event.eventId}`);
    running--;
  };
  return { log, handle, mostAtOnce: () => mostAtOnce };
}

it("hands one key's events to a group in publication order, one after another", async () => {
  const transport = createInProcessTransport();
  const group = recorder(5);
  await transport.subscribe({ group: "g", topics: ["things"], handle: group.handle });
  await transport.publish([message("a", 1), message("a", 2), message("a", 3)]);
  expect(group.log).toEqual(["start a-1", "end a-1", "start a-2", "end a-2", "start a-3", "end a-3"]);
});

it("handles different keys side by side, never more than IN_PROCESS_HANDLERS_AT_ONCE events at once across groups", async () => {
  const transport = createInProcessTransport();
  const first = recorder(20);
  const second = recorder(20);
  await transport.subscribe({ group: "g1", topics: ["things"], handle: first.handle });
  await transport.subscribe({ group: "g2", topics: ["things"], handle: second.handle });
  const keys = ["a", "b", "c", "d", "e", "f"];
  await transport.publish(keys.map((key) => message(key, 1)));
  expect(first.mostAtOnce()).toBeGreaterThan(1);
  expect(first.mostAtOnce()).toBeLessThanOrEqual(IN_PROCESS_HANDLERS_AT_ONCE);
  expect(second.mostAtOnce()).toBeLessThanOrEqual(IN_PROCESS_HANDLERS_AT_ONCE);
  expect(first.log.filter((line) => line.startsWith("end"))).toHaveLength(keys.length);
  expect(second.log.filter((line) => line.startsWith("end"))).toHaveLength(keys.length);
});

it("bounds the handlers at once across concurrent publishes", async () => {
  const transport = createInProcessTransport();
  let running = 0;
  let mostAtOnce = 0;
  await transport.subscribe({
    group: "g",
    topics: ["things"],
    handle: async () => {
      mostAtOnce = Math.max(mostAtOnce, ++running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    },
  });
  await Promise.all(Array.from({ length: 4 }, (_, i) => transport.publish(["a", "b", "c"].map((key) => message(`${key}${i}`, 1)))));
  expect(mostAtOnce).toBe(IN_PROCESS_HANDLERS_AT_ONCE);
});

it("delivers only the topics a group subscribed to", async () => {
  const transport = createInProcessTransport();
  const group = recorder(0);
  await transport.subscribe({ group: "g", topics: ["things"], handle: group.handle });
  await transport.publish([message("a", 1, "other"), message("a", 2)]);
  expect(group.log).toEqual(["start a-2", "end a-2"]);
});

it("fails the publish when a delivery fails, after the other keys' deliveries ended, and stops that key's queue", async () => {
  const transport = createInProcessTransport();
  const handled: string[] = [];
  await transport.subscribe({
    group: "g",
    topics: ["things"],
    handle: async (event) => {
      await new Promise((resolve) => setTimeout(resolve, event.key === "ok" ? 20 : 1));
      if (event.eventId === "bad-1") throw new Error("redeliver me");
      handled.push(event.eventId);
    },
  });
  await expect(transport.publish([message("bad", 1), message("bad", 2), message("ok", 1)])).rejects.toThrow("redeliver me");
  expect(handled).toEqual(["ok-1"]);
});

it("keeps one key's events in order across overlapping publishes, while other keys go ahead", async () => {
  const transport = createInProcessTransport();
  const group = recorder(20);
  await transport.subscribe({ group: "g", topics: ["things"], handle: group.handle });
  const first = transport.publish([message("a", 1)]);
  const second = transport.publish([message("a", 2), message("b", 1)]);
  await Promise.all([first, second]);
  expect(group.log.indexOf("end a-1")).toBeLessThan(group.log.indexOf("start a-2"));
  expect(group.log.indexOf("start b-1")).toBeLessThan(group.log.indexOf("end a-1"));
});

it("fails a later publish's event of a key whose earlier delivery failed, without handling it, so redelivery keeps the order", async () => {
  const transport = createInProcessTransport();
  const handled: string[] = [];
  let failures = 1;
  await transport.subscribe({
    group: "g",
    topics: ["things"],
    handle: async (event) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (event.eventId === "a-1" && failures-- > 0) throw new Error("redeliver me");
      handled.push(event.eventId);
    },
  });
  const first = transport.publish([message("a", 1)]);
  const second = transport.publish([message("a", 2), message("b", 1)]);
  await expect(first).rejects.toThrow("redeliver me");
  await expect(second).rejects.toThrow("an earlier event of key a was not delivered to g");
  expect(handled).toEqual(["b-1"]);
  // Redelivered in order, the key flows again.
  await transport.publish([message("a", 1), message("a", 2)]);
  expect(handled).toEqual(["b-1", "a-1", "a-2"]);
});
