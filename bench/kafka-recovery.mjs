// Benchmark: event delivery after Kafka faults. Run with `npm run bench:kafka-recovery` after
// `npm run build`. About a minute on 2 cores. Uses the platform's Kafka transport on a broker of its own.
//
// 1. Broker kill -9 and restart: a consumer group is joined; the broker is killed (SIGKILL) and
//    started again on the same port and data; the clock runs from the broker being ready until an
//    event published then reaches the handler (the producer and the consumer reconnect on their own).
// 2. A member killed without leaving its group: a child process joins a group and is killed -9; the
//    clock runs from a new member subscribing until an event published then reaches it (the broker
//    waits out the dead member's session first).
//
// Prints each round's figure in milliseconds. Environment: BENCH_ROUNDS (default 3).
import "./pinned-node.mjs";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { startKafka } from "../test/src/kafka.mjs";
import { freePort } from "../test/src/ports.mjs";

const require = createRequire(import.meta.url);
const SHARED = require.resolve("../services/shared/dist/index.js");
const { createKafkaTransport, createLogger } = require(SHARED);

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const logger = createLogger("bench", "silent");
const kafka = await startKafka({ port: await freePort() });

/** Subscribes `group` to `topic`; resolves each delivered event id through `delivered`. */
async function member(group, topic) {
  const transport = createKafkaTransport({ brokers: [kafka.brokers], clientId: "bench", logger });
  const waiting = new Map();
  await transport.subscribe({ group, topics: [topic], handle: async (m) => waiting.get(m.eventId)?.() });
  const delivered = (eventId) => new Promise((resolve) => waiting.set(eventId, resolve));
  const publish = (eventId) => transport.publish([{ eventId, topic, key: "k", payload: Buffer.from("x"), headers: {} }]);
  const ready = async () => {
    while (transport.status() !== "ready") await new Promise((resolve) => setTimeout(resolve, 20));
  };
  return { transport, delivered, publish, ready };
}

async function brokerRestart(round) {
  const m = await member(`restart-${round}`, `bench.restart.${round}`);
  await m.ready();
  await kafka.halt();
  await kafka.resume();
  const start = performance.now();
  const arrived = m.delivered("after-restart");
  await m.publish("after-restart");
  await arrived;
  const ms = Math.round(performance.now() - start);
  await m.transport.close();
  return ms;
}

// A member in a child process that reports once it is in its group, then waits to be killed.
const CHILD = `const { createKafkaTransport, createLogger } = require(process.argv[1]);
const t = createKafkaTransport({ brokers: [process.argv[2]], clientId: "bench-child", logger: createLogger("c", "silent") });
t.subscribe({ group: process.argv[3], topics: [process.argv[4]], handle: async () => {} });
const poll = setInterval(() => t.status() === "ready" && (clearInterval(poll), console.log("ready")), 20);`;

async function killedMember(round) {
  const group = `killed-${round}`;
  const topic = `bench.killed.${round}`;
  const child = spawn(process.execPath, ["-e", CHILD, SHARED, kafka.brokers, group, topic], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => child.stdout.once("data", resolve));
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
  const start = performance.now();
  const m = await member(group, topic);
  const arrived = m.delivered("after-kill");
  await m.publish("after-kill");
  await arrived;
  const ms = Math.round(performance.now() - start);
  await m.transport.close();
  return ms;
}

try {
  for (let round = 1; round <= ROUNDS; round++) console.log(`broker kill -9 + restart: delivered ${await brokerRestart(round)} ms after the broker was ready`);
  for (let round = 1; round <= ROUNDS; round++) console.log(`member killed -9 without leaving: a new member got an event ${await killedMember(round)} ms after subscribing`);
} finally {
  await kafka.stop();
}
