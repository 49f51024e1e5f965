/** One event as it travels between services. */
export interface EventMessage {
  /** Unique id; consumers deduplicate on it. */
  eventId: string;
  topic: string;
  /** Partition key: the aggregate id, so one aggregate's events stay in order. */
  key: string;
  /** The protobuf-encoded payload (a message of hangar.events.v1). */
  payload: Uint8Array;
  /** Trace context and other metadata. */
  headers: Record<string, string>;
}

/** A consumer group's subscription to topics. */
export interface Subscription {
  /** Consumer group; each group sees every event once in effect. */
  group: string;
  topics: string[];
  /** Handles one event. It throws only when the event must be redelivered (infrastructure failure). */
  handle(message: EventMessage): Promise<void>;
}

/**
 * Moves events from outboxes to consumers: Kafka in distributed mode, an in-process bus in the
 * embedded default. Both deliver at least once; consumers make the effect exactly once.
 */
export interface EventTransport {
  publish(messages: EventMessage[]): Promise<void>;
  /** Starts delivering to the subscription; the result stops it (for a service that stops first). */
  subscribe(subscription: Subscription): Promise<() => Promise<void>>;
  /**
   * `ready` when every subscription receives events; `connecting` while a consumer is still joining
   * its group (the broker away, a rebalance). Publishing does not wait for it: the outbox holds events.
   */
  status(): TransportStatus;
  /**
   * How many messages of each topic the consumer group has yet to commit (the Kafka transport's
   * consumer lag, for metrics); absent where delivery is synchronous (in process).
   */
  consumerLag?(group: string, topics: readonly string[]): Promise<Map<string, number>>;
  /**
   * How many publishes an outbox relay may have under way at once (default 1): more than one only
   * where the transport keeps one key's events in publication order across publishes that overlap.
   */
  publishesAtOnce?: number;
  close(): Promise<void>;
}

/** Whether a transport delivers now; see `EventTransport.status`. */
export type TransportStatus = "connecting" | "ready";

/** Name of the dead-letter topic of a topic. */
export function deadLetterTopic(topic: string): string {
  return `${topic}.dlq`;
}
