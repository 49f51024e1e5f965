// Self-check of the test broker: starts it, sends one message through it with kafkajs, prints the
// timings and stops it. Run: node_modules/.bin/node test/kafka/smoke.mjs
import { Kafka, logLevel } from "kafkajs";
import { startKafka } from "../src/kafka.mjs";

const ms = (since) => Math.round(performance.now() - since);
const t0 = performance.now();
const broker = await startKafka();
const startTotalMs = ms(t0);
try {
  const kafka = new Kafka({ clientId: "smoke", brokers: [broker.brokers], logLevel: logLevel.NOTHING });
  const topic = `smoke-${Date.now()}`;
  const t1 = performance.now();
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic }], waitForLeaders: true });
  await admin.disconnect();

  const consumer = kafka.consumer({ groupId: "smoke" });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const received = new Promise((resolve) => consumer.run({ eachMessage: async ({ message }) => resolve(message.value.toString()) }));

  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ key: "k", value: "hello hangar" }] });
  const value = await received;
  const roundTripMs = ms(t1);
  await Promise.all([producer.disconnect(), consumer.disconnect()]);
  if (value !== "hello hangar") throw new Error(`unexpected message ${value}`);

  const t2 = performance.now();
  await broker.stop();
  console.log(JSON.stringify({ brokers: broker.brokers, ...broker.timings, startTotalMs, roundTripMs, stopMs: ms(t2) }));
} catch (err) {
  await broker.stop();
  throw err;
}
