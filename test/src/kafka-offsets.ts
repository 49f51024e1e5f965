import { Kafka, logLevel, type Admin } from "kafkajs";
import { requiredEnv } from "./database";
import { waitFor } from "./wait";

/** A Kafka admin client on the test broker. */
export async function kafkaAdmin(): Promise<Admin> {
  const admin = new Kafka({ brokers: requiredEnv("HANGAR_TEST_KAFKA_BROKERS").split(","), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  return admin;
}

/** How many messages a topic holds. */
export async function messagesOnTopic(admin: Admin, topic: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
}

/** Waits until a consumer group has committed every message on a topic. */
export async function consumerCaughtUp(admin: Admin, groupId: string, topic: string): Promise<void> {
  await waitFor(`consumer group ${groupId} to catch up on ${topic}`, async () => {
    const end = await admin.fetchTopicOffsets(topic);
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    // A partition the group never committed on reports -1; it is caught up when the topic's is empty too.
    const offsetOf = (partition: number) => Math.max(0, Number(committed!.partitions.find((c) => c.partition === partition)?.offset ?? -1));
    return end.every((p) => offsetOf(p.partition) === Number(p.high)) ? true : undefined;
  });
}
