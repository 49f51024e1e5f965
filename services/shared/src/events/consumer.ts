import { Code, ConnectError } from "@connectrpc/connect";
import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import { isDatabaseUnavailable, type EntityManager, type Orm } from "../db";
import { extractTraceContext, tracer, type Logger } from "../telemetry";
import { DeadLetter, ProcessedEvent } from "./tables";
import { deadLetterTopic, type EventMessage, type EventTransport, type Subscription } from "./transport";

/** Applies one event inside the consumer's transaction. */
export type EventHandler = (em: EntityManager, message: EventMessage) => Promise<void>;

/** Options of an idempotent consumer. */
export interface ConsumerOptions {
  /** Consumer name: the Kafka group and the key of its processed-event records. */
  name: string;
  topics: string[];
  orm: Orm;
  transport: EventTransport;
  logger: Logger;
  handler: EventHandler;
  /**
   * Whether the handler acts on an event at all. One it would not act on is acknowledged at once,
   * without a transaction or a processed-event record (there is nothing to apply twice): each such
   * record costs a commit, which on the in-process transport holds one of the few delivery slots
   * that every consumer's events wait for. Default: every event of `topics`.
   */
  accepts?: (message: EventMessage) => boolean;
  /** Attempts before an event goes to the dead-letter topic (default 5). */
  maxAttempts?: number;
  /** Delay before the first retry, doubled each time (default 100 ms). */
  retryDelayMs?: number;
}

/** A running consumer. */
export interface RunningConsumer {
  /**
   * Stops delivery and waits for the events in hand. An event still failing is left undelivered
   * (not dead-lettered): it comes again when the consumer next starts.
   */
  stop(): Promise<void>;
}

/**
 * Subscribes a handler so that each event takes effect exactly once: the event id is recorded in
 * the same transaction as the effect, and a redelivered id is skipped. An event that keeps failing
 * goes to the dead-letter topic and table with its error after bounded retries; one that fails
 * because the database is unreachable is handed back for redelivery instead, since an outage is no
 * fault of the event.
 */
export async function startConsumer(options: ConsumerOptions): Promise<RunningConsumer> {
  let stopped = false;
  const inHand = new Set<Promise<void>>();
  const subscription: Subscription = {
    group: options.name,
    topics: options.topics,
    handle: (message) => {
      if (stopped) return Promise.reject(new Error(`consumer ${options.name} has stopped`));
      if (!accepted(options, message)) return Promise.resolve();
      const handling = handleWithRetries(options, message, () => stopped).finally(() => inHand.delete(handling));
      inHand.add(handling);
      return handling;
    },
  };
  const unsubscribe = await options.transport.subscribe(subscription);
  return {
    async stop() {
      stopped = true;
      await unsubscribe();
      await Promise.allSettled(inHand);
    },
  };
}

/**
 * Whether the consumer acts on the message. One that `accepts` cannot read (a payload that does not
 * decode) goes to the handler, which fails on it the same way, so it is dead-lettered as before.
 */
function accepted(options: Pick<ConsumerOptions, "accepts">, message: EventMessage): boolean {
  try {
    return options.accepts?.(message) ?? true;
  } catch {
    return true;
  }
}

async function handleWithRetries(options: ConsumerOptions, message: EventMessage, stopped: () => boolean): Promise<void> {
  const maxAttempts = options.maxAttempts ?? 5;
  let delay = options.retryDelayMs ?? 100;
  for (let attempt = 1; ; attempt++) {
    try {
      await applyOnce(options, message);
      return;
    } catch (error) {
      options.logger.warn({ err: error, eventId: message.eventId, attempt, consumer: options.name }, "event handler failed");
      // A stopping consumer hands the event back rather than retrying into a closing database.
      if (stopped()) throw error;
      if (attempt >= maxAttempts) {
        // An outage says nothing about the event: hand it back rather than bury it.
        if (isOutage(error)) throw error;
        return deadLetter(options, message, error);
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay *= 2;
    }
  }
}

/**
 * Whether a failure is an outage rather than a fault of the event: the consumer's database, or a
 * service the handler asks (UNAVAILABLE: it is down or restarting), cannot be reached.
 */
function isOutage(error: unknown): boolean {
  return isDatabaseUnavailable(error) || (error instanceof ConnectError && error.code === Code.Unavailable);
}

/** Runs the handler and records the event id in one transaction, unless the id was seen before. */
export async function applyOnce(options: Pick<ConsumerOptions, "name" | "orm" | "handler">, message: EventMessage): Promise<boolean> {
  const span = tracer().startSpan(
    `consume ${message.topic}`,
    { kind: SpanKind.CONSUMER, attributes: { "messaging.destination.name": message.topic, "messaging.consumer.group.name": options.name } },
    extractTraceContext(message.headers),
  );
  try {
    return await context.with(trace.setSpan(context.active(), span), () =>
      options.orm.em.fork().transactional(async (em) => {
        const inserted: unknown[] = await em.execute(
          "insert into processed_events (consumer, event_id, processed) values (?, ?, now()) on conflict do nothing returning event_id",
          [options.name, message.eventId],
        );
        if (inserted.length === 0) return false;
        await options.handler(em, message);
        return true;
      }),
    );
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
    throw error;
  } finally {
    span.end();
  }
}

async function deadLetter(options: ConsumerOptions, message: EventMessage, error: unknown): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error);
  await options.orm.em.fork().transactional(async (em) => {
    await em.upsert(DeadLetter, {
      consumer: options.name,
      eventId: message.eventId,
      topic: message.topic,
      error: reason,
      payload: Buffer.from(message.payload),
      created: new Date(),
    });
    // Later redeliveries of a dead event are skipped like processed ones.
    await em.upsert(ProcessedEvent, { consumer: options.name, eventId: message.eventId, processed: new Date() });
  });
  await options.transport.publish([
    { ...message, topic: deadLetterTopic(message.topic), headers: { ...message.headers, "dead-letter-error": reason, "dead-letter-consumer": options.name } },
  ]);
  options.logger.error({ eventId: message.eventId, consumer: options.name, error: reason }, "event moved to dead letters");
}
