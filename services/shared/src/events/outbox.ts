import { randomUUID } from "node:crypto";
import type { EventSubscriber, TransactionEventArgs } from "@mikro-orm/core";
import { SpanKind, context, trace } from "@opentelemetry/api";
// Not "../db": openDatabase imports this module for outboxSubscriber.
import type { EntityManager, Orm } from "../db/database";
import { queryPrepared } from "../db/prepared-query";
import { extractTraceContext, injectTraceContext, tracer, type Logger } from "../telemetry";
import { createWakeableSleep } from "./wakeable-sleep";
import type { EventMessage, EventTransport } from "./transport";

/** An event to emit: its topic, the aggregate id as key, and the encoded payload. */
export interface NewEvent {
  topic: string;
  key: string;
  payload: Uint8Array;
}

/**
 * Adds an event to the outbox of the caller's transaction, so it commits or rolls back together
 * with the state change it describes. The active trace context rides along. The events a
 * transaction records are written by one explicit insert as it commits (see writeRecordedEvents):
 * recording stays synchronous for the callers, and costs no ORM entity, change set or query building.
 */
export function recordEvent(em: EntityManager, event: NewEvent): string {
  const transaction = em.getTransactionContext<object>();
  if (!transaction) throw new Error(`recordEvent(${event.topic}) outside a transaction: an event must commit with the change it describes`);
  // MikroORM runs commit hooks for top-level transactions only, and a savepoint's rollback could not drop its events.
  if ("savepointName" in transaction) throw new Error(`recordEvent(${event.topic}) in a nested transaction: record it in the top-level one`);
  if (!em.getEventManager().getSubscribers().has(outboxSubscriber)) throw new Error("recordEvent needs a database opened by openDatabase (it writes the outbox on commit)");
  const headers: Record<string, string> = {};
  injectTraceContext(headers);
  const eventId = randomUUID();
  const recorded = recordedEvents.get(transaction) ?? [];
  recordedEvents.set(transaction, recorded);
  recorded.push({ eventId, topic: event.topic, key: event.key, payload: Buffer.from(event.payload), headers, created: new Date() });
  return eventId;
}

/** An event recorded in a transaction that has not committed yet (its payload copied when recorded). */
interface RecordedEvent {
  eventId: string;
  topic: string;
  key: string;
  payload: Buffer;
  headers: Record<string, string>;
  created: Date;
}

// By transaction: a rolled-back one's events are dropped with it (nothing else refers to it).
const recordedEvents = new WeakMap<object, RecordedEvent[]>();

/**
 * Writes recorded events as their transactions commit; openDatabase registers it with every ORM
 * (MikroORM gives each transaction a copy of the ORM's subscribers, so it must be there from the start).
 */
export const outboxSubscriber: EventSubscriber = { beforeTransactionCommit: writeRecordedEvents };

/** Inserts the events a top-level transaction recorded, in order, in one statement inside it, just before it commits. */
async function writeRecordedEvents({ em, transaction }: TransactionEventArgs): Promise<void> {
  const recorded = transaction ? recordedEvents.get(transaction) : undefined;
  if (!recorded) return;
  recordedEvents.delete(transaction!);
  await em.getConnection().execute(
    `insert into outbox (event_id, topic, key, payload, headers, created) values ${recorded.map(() => "(?, ?, ?, ?, ?::jsonb, ?)").join(", ")}`,
    recorded.flatMap((e) => [e.eventId, e.topic, e.key, e.payload, JSON.stringify(e.headers), e.created]),
    "run",
    transaction,
  );
}

/** Options of the outbox relay. */
export interface OutboxRelayOptions {
  orm: Orm;
  transport: EventTransport;
  logger: Logger;
  /** How often to look for new rows when not woken (default 200 ms). */
  intervalMs?: number;
  batchSize?: number;
  /**
   * Runs after a batch is published and before it is marked sent: a test seam where a throw is a
   * crash at the one point random kills practically never hit. Default: nothing.
   */
  afterPublish?: () => void;
}

/** A running relay. */
export interface OutboxRelay {
  /** Asks the relay to look at the outbox now (after a commit that wrote events). */
  wake(): void;
  stop(): Promise<void>;
}

interface PendingRow {
  seq: string;
  event_id: string;
  topic: string;
  key: string;
  payload: Buffer;
  headers: Record<string, string>;
}

/**
 * Publishes outbox rows in order and marks them sent. Rows are locked with SKIP LOCKED, so several
 * replicas can relay one outbox; a crash between publish and mark publishes again, which the
 * consumers' deduplication absorbs. Up to the transport's `publishesAtOnce` batches are under way
 * at once: the next batch is read as soon as the last one is handed over.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const batchSize = options.batchSize ?? 100;
  const publishesAtOnce = options.transport.publishesAtOnce ?? 1;
  let stopped = false;
  const pause = createWakeableSleep();
  const underWay = new Set<Promise<void>>();
  /** Starts relaying a batch; resolves with how many rows it handed to the transport (0: none, or it failed first). */
  const startBatch = () =>
    new Promise<number>((handedOver) => {
      const batch: Promise<void> = relayBatch(options, batchSize, handedOver)
        .then(handedOver, (error: unknown) => {
          options.logger.error({ err: error }, "outbox relay failed; retrying");
          handedOver(0);
        })
        .finally(() => underWay.delete(batch));
      underWay.add(batch);
    });
  const loop = async () => {
    while (!stopped) {
      // The next batch is read once this one is handed over, while its handlers may still run.
      const relayed = await startBatch();
      while (underWay.size >= publishesAtOnce) await Promise.race(underWay);
      if (relayed < batchSize && !stopped) await pause.sleep(options.intervalMs ?? 200);
    }
    await Promise.all(underWay);
  };
  const running = loop();
  return {
    wake: () => pause.wake(),
    async stop() {
      stopped = true;
      pause.wake();
      await running;
    },
  };
}

/**
 * Publishes one batch of unsent rows and marks them; returns how many it relayed, and tells
 * `handedOver` how many as soon as the transport has them (before their delivery ends). An empty outbox,
 * what nearly every poll finds, costs one prepared query on the partial index instead of a
 * transaction of three (every service polls five times a second: measured, that was most of an
 * idle platform's 5% of a core, and paid again under load).
 */
export async function relayBatch(
  options: Pick<OutboxRelayOptions, "orm" | "transport" | "afterPublish">,
  batchSize = 100,
  handedOver: (rows: number) => void = () => undefined,
): Promise<number> {
  if ((await queryPrepared(options.orm, "select 1 from outbox where published is null limit 1", [])).length === 0) return 0;
  return options.orm.em.fork().transactional(async (em) => {
    // Rows of a batch still under way are locked and skipped: the next unsent ones come.
    const rows: PendingRow[] = await em.execute(
      "select seq, event_id, topic, key, payload, headers from outbox where published is null order by seq limit ? for update skip locked",
      [batchSize],
    );
    if (rows.length === 0) return 0;
    const published = options.transport.publish(rows.map(toMessage));
    handedOver(rows.length);
    await published;
    options.afterPublish?.();
    // One array literal: the ORM would expand a JS array parameter into a list of values.
    await em.execute("update outbox set published = now() where seq = any(?::bigint[])", [`{${rows.map((r) => r.seq).join(",")}}`]);
    return rows.length;
  });
}

/** Wraps publication in a producer span whose context replaces the recorded one downstream. */
function toMessage(row: PendingRow): EventMessage {
  const parent = extractTraceContext(row.headers);
  const span = tracer().startSpan(`publish ${row.topic}`, { kind: SpanKind.PRODUCER, attributes: { "messaging.destination.name": row.topic } }, parent);
  const headers = { ...row.headers };
  injectTraceContext(headers, trace.setSpan(context.active(), span));
  span.end();
  return { eventId: row.event_id, topic: row.topic, key: row.key, payload: row.payload, headers };
}

/** How many outbox events wait to be published, and the oldest one's age in seconds (0 when none): the relay's backlog, for metrics. */
export async function outboxBacklog(orm: Orm): Promise<{ pending: number; lagSeconds: number }> {
  const [row] = await orm.em
    .fork()
    .execute<{ pending: number; lag: number }[]>(
      "select count(*)::int as pending, coalesce(extract(epoch from now() - min(created)), 0)::float8 as lag from outbox where published is null",
    );
  return { pending: Number(row?.pending ?? 0), lagSeconds: Number(row?.lag ?? 0) };
}
