import { Kafka, logLevel, type Admin, type IHeaders, type Producer } from "kafkajs";
import type { Logger } from "../telemetry";
import { MAX_RETRY_MS, startGroupMember, type GroupMember } from "./kafka-group-member";
import type { EventMessage, EventTransport, Subscription } from "./transport";

/** Options of the Kafka transport. */
export interface KafkaTransportOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
  /**
   * Prefix for topic and consumer-group names, so several platforms (test runs, staging next to
   * production) can share one cluster without seeing each other's events. Default: none.
   */
  namespace?: string;
}

/**
 * Retries of each Kafka request: a publish that cannot reach the broker fails after a few seconds
 * (the outbox keeps the rows and the relay tries again) instead of growing to kafkajs's 30 s steps.
 */
const RETRY = { initialRetryTime: 100, maxRetryTime: MAX_RETRY_MS, retries: 5 };

/**
 * Kafka transport: an idempotent producer with `acks=all`, and one consumer per group that
 * commits an offset only after the handler returned, so a crash redelivers instead of losing.
 * Nothing waits for the broker: consumers join their groups in the background (all at once) and
 * the producer connects on the first publish, so the platform starts and serves while Kafka is
 * away, and `status()` says whether every consumer is in its group.
 */
export function createKafkaTransport(options: KafkaTransportOptions): EventTransport {
  const kafka = new Kafka({ clientId: options.clientId, brokers: options.brokers, logLevel: logLevel.WARN, logCreator: kafkaLogs(options.logger), retry: RETRY });
  const members = new Set<GroupMember>();
  const prefix = options.namespace ? `${options.namespace}.` : "";
  const producer = lazyProducer(kafka);
  const admin = lazyAdmin(kafka);
  return {
    async publish(messages) {
      if (messages.length === 0) return;
      const byTopic = new Map<string, EventMessage[]>();
      for (const m of messages) byTopic.set(m.topic, [...(byTopic.get(m.topic) ?? []), m]);
      await (await producer.connected()).sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, list]) => ({
          topic: prefix + topic,
          messages: list.map((m) => ({ key: m.key, value: Buffer.from(m.payload), headers: { ...m.headers, "event-id": m.eventId } })),
        })),
      });
    },
    async subscribe(subscription: Subscription) {
      const member = startGroupMember({
        kafka,
        groupId: prefix + subscription.group,
        topics: subscription.topics.map((t) => prefix + t),
        logger: options.logger,
        eachMessage: async ({ topic, message }) => {
          const headers = decodeHeaders(message.headers);
          await subscription.handle({
            eventId: headers["event-id"] ?? `${topic}:${message.offset}`,
            topic: topic.slice(prefix.length),
            key: message.key?.toString() ?? "",
            payload: message.value ?? Buffer.alloc(0),
            headers,
          });
        },
      });
      members.add(member);
      return async () => {
        if (members.delete(member)) await member.stop();
      };
    },
    status: () => ([...members].every((m) => m.joined()) ? "ready" : "connecting"),
    consumerLag: (group, topics) => consumerLag(admin, prefix, group, topics),
    async close() {
      const leaving = [...members];
      members.clear();
      await Promise.all(leaving.map((m) => m.stop()));
      await producer.disconnect();
      await admin.disconnect();
    },
  };
}

/** The producer, connected on first use; a failed connection is dropped so the next publish tries afresh. */
function lazyProducer(kafka: Kafka) {
  let connecting: Promise<Producer> | undefined;
  const connect = async (): Promise<Producer> => {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true });
    try {
      await producer.connect();
      return producer;
    } catch (error) {
      connecting = undefined;
      throw error;
    }
  };
  return {
    connected: () => (connecting ??= connect()),
    async disconnect() {
      const current = connecting;
      connecting = undefined;
      await current?.then((p) => p.disconnect()).catch(() => undefined);
    },
  };
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) out[key] = Array.isArray(value) ? String(value[0]) : String(value);
  }
  return out;
}

function kafkaLogs(logger: Logger) {
  return () =>
    ({ namespace, log }: { namespace: string; log: { message: string } & Record<string, unknown> }) => {
      logger.warn({ kafka: namespace, ...log }, log.message);
    };
}

/** An admin client connected on first use (metrics scrapes), so a platform without scrapes opens none. */
function lazyAdmin(kafka: Kafka): { connected(): Promise<Admin>; disconnect(): Promise<void> } {
  let admin: Promise<Admin> | undefined;
  return {
    connected() {
      admin ??= (async () => {
        const client = kafka.admin();
        await client.connect();
        return client;
      })().catch((error: unknown) => {
        admin = undefined;
        throw error;
      });
      return admin;
    },
    async disconnect() {
      const connecting = admin;
      admin = undefined;
      await (await connecting?.catch(() => undefined))?.disconnect();
    },
  };
}

/** Per topic, the group's committed offsets behind the partitions' ends (a partition never committed counts from its start). */
async function consumerLag(admin: ReturnType<typeof lazyAdmin>, prefix: string, group: string, topics: readonly string[]): Promise<Map<string, number>> {
  const client = await admin.connected();
  const committed = await client.fetchOffsets({ groupId: prefix + group, topics: topics.map((t) => prefix + t) });
  const lag = new Map<string, number>();
  for (const { topic, partitions } of committed) {
    const ends = await client.fetchTopicOffsets(topic);
    const behind = ends.reduce((sum, end) => {
      const offset = Number(partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
      return sum + Number(end.high) - (offset < 0 ? Number(end.low) : offset);
    }, 0);
    lag.set(topic.slice(prefix.length), behind);
  }
  return lag;
}
