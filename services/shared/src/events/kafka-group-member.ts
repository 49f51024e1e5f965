import { setTimeout as sleep } from "node:timers/promises";
import type { Consumer, EachMessagePayload, Kafka } from "kafkajs";
import type { Logger } from "../telemetry";

/** A consumer group membership kept up in the background. */
export interface GroupMember {
  /** Whether the consumer is in its group now (false while Kafka is away or the group rebalances). */
  joined(): boolean;
  /** Leaves the group (so the others take its partitions at once) and stops retrying. */
  stop(): Promise<void>;
}

/** Options of `startGroupMember`. */
export interface GroupMemberOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  eachMessage(payload: EachMessagePayload): Promise<void>;
  logger: Logger;
}

/** First wait before joining again after a failure; doubled each time up to `MAX_RETRY_MS`. */
const FIRST_RETRY_MS = 100;
/**
 * Longest wait between attempts: kafkajs's own default grows to 30 s, so that after a broker
 * restart events waited ~20 s for consumers that were sleeping out their backoff.
 */
export const MAX_RETRY_MS = 2_000;
/**
 * How long the broker keeps a member that stopped heartbeating. A process killed without leaving
 * its group holds that group's next join until this passes (kafkajs's default is 30 s); 10 s is the
 * shortest that still survives a handler retrying an event for a few seconds. kafkajs 2.2.4 does
 * not send a group instance id, so static membership, which would avoid the wait, is not available.
 */
const SESSION_TIMEOUT_MS = 10_000;
const HEARTBEAT_INTERVAL_MS = 1_000;
/**
 * Longest a fetch waits at the broker for new messages. Stopping a consumer waits for its fetch in
 * progress, so kafkajs's 5 s default made every shutdown (and a test's restart) 5 s long; messages
 * arrive as soon as they are there whatever this is, so 1 s costs only idle fetches.
 */
const MAX_FETCH_WAIT_MS = 1_000;

/**
 * Joins a consumer group in the background and keeps it joined: until the first join succeeds,
 * and after any crash kafkajs does not restart from itself, it tries again with a backoff capped at
 * `MAX_RETRY_MS`. Returns at once, so a service starts serving while Kafka is away; the outbox
 * keeps the events meanwhile.
 */
export function startGroupMember(options: GroupMemberOptions): GroupMember {
  const stop = new AbortController();
  const stopped = new Promise<void>((resolve) => stop.signal.addEventListener("abort", () => resolve(), { once: true }));
  const state = { joined: false };
  const run = async () => {
    let delay = FIRST_RETRY_MS;
    while (!stop.signal.aborted) {
      const wasJoined = await joinUntilCrash(options, state, stopped).catch((error: unknown) => {
        options.logger.warn({ err: error, group: options.groupId }, "kafka unreachable; joining again shortly");
        return false;
      });
      // A membership that worked for a while starts its backoff afresh.
      delay = wasJoined ? FIRST_RETRY_MS : Math.min(delay * 2, MAX_RETRY_MS);
      await sleep(delay, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  };
  const running = run();
  return {
    joined: () => state.joined,
    async stop() {
      stop.abort();
      await running;
    },
  };
}

/**
 * One membership: connects, subscribes and runs the consumer until it crashes in a way kafkajs
 * does not restart from itself, or until `stopped`; then leaves the group. Resolves whether the
 * consumer ever joined.
 */
async function joinUntilCrash(options: GroupMemberOptions, state: { joined: boolean }, stopped: Promise<void>): Promise<boolean> {
  const consumer = createConsumer(options);
  let everJoined = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    if (!state.joined) options.logger.info({ group: options.groupId }, "kafka consumer joined its group");
    state.joined = everJoined = true;
  });
  const crashed = new Promise<unknown>((resolve) =>
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      state.joined = false;
      if (!payload.restart) resolve(payload.error);
    }),
  );
  try {
    await ensureTopics(options.kafka, options.topics);
    await consumer.connect();
    await consumer.subscribe({ topics: options.topics, fromBeginning: true });
    await consumer.run({ autoCommit: true, eachMessage: options.eachMessage });
    const crash = await Promise.race([crashed, stopped.then(() => undefined)]);
    if (crash !== undefined) options.logger.warn({ err: crash, group: options.groupId }, "kafka consumer stopped; joining again");
    return everJoined;
  } finally {
    state.joined = false;
    await consumer.disconnect().catch(() => undefined);
  }
}

function createConsumer(options: GroupMemberOptions): Consumer {
  return options.kafka.consumer({
    groupId: options.groupId,
    allowAutoTopicCreation: true,
    sessionTimeout: SESSION_TIMEOUT_MS,
    heartbeatInterval: HEARTBEAT_INTERVAL_MS,
    maxWaitTimeInMs: MAX_FETCH_WAIT_MS,
  });
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
