import { Kafka, logLevel, type Consumer, type Producer, type IHeaders } from "kafkajs";
import type { Logger } from "../telemetry";
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
 * Kafka transport: an idempotent producer with `acks=all`, and one consumer per group that
 * commits an offset only after the handler returned, so a crash redelivers instead of losing.
 */
export function createKafkaTransport(options: KafkaTransportOptions): EventTransport {
  const kafka = new Kafka({ clientId: options.clientId, brokers: options.brokers, logLevel: logLevel.WARN, logCreator: kafkaLogs(options.logger) });
  const consumers: Consumer[] = [];
  const prefix = options.namespace ? `${options.namespace}.` : "";
  let producer: Producer | undefined;
  const connectedProducer = async (): Promise<Producer> => {
    if (!producer) {
      producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true });
      await producer.connect();
    }
    return producer;
  };
  return {
    async publish(messages) {
      if (messages.length === 0) return;
      const byTopic = new Map<string, EventMessage[]>();
      for (const m of messages) byTopic.set(m.topic, [...(byTopic.get(m.topic) ?? []), m]);
      await (await connectedProducer()).sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, list]) => ({
          topic: prefix + topic,
          messages: list.map((m) => ({ key: m.key, value: Buffer.from(m.payload), headers: { ...m.headers, "event-id": m.eventId } })),
        })),
      });
    },
    async subscribe(subscription: Subscription) {
      const topics = subscription.topics.map((t) => prefix + t);
      await ensureTopics(kafka, topics);
      const consumer = kafka.consumer({ groupId: prefix + subscription.group, allowAutoTopicCreation: true });
      consumers.push(consumer);
      await consumer.connect();
      await consumer.subscribe({ topics, fromBeginning: true });
      await consumer.run({
        autoCommit: true,
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
      return async () => {
        const at = consumers.indexOf(consumer);
        if (at < 0) return;
        consumers.splice(at, 1);
        await consumer.disconnect();
      };
    },
    async close() {
      await Promise.all(consumers.map((c) => c.disconnect()));
      consumers.length = 0;
      await producer?.disconnect();
      producer = undefined;
    },
  };
}

/**
 * Creates the topics a consumer reads before it subscribes: subscribing to a topic that does not
 * exist yet fails, and a consumer usually starts before the first event of its topic is produced.
 */
async function ensureTopics(kafka: Kafka, topics: string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length > 0) await admin.createTopics({ waitForLeaders: true, topics: missing.map((topic) => ({ topic })) });
  } finally {
    await admin.disconnect();
  }
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
