import type { EventMessage, EventTransport, Subscription } from "./transport";

/**
 * How many events the transport hands to handlers at once, across every group and every relay
 * publishing. Handlers wait mostly on their database (a commit each, fsync on): one at a time, a
 * burst of 16 uploads queued behind one another and took two seconds and more to fire their
 * triggers (bench:compute). Small, because a handler may hold two connections of its service's
 * pool (10) at once (its own transaction and one of a use case that commits on its own) while
 * that service's relay holds one per publish under way: three handlers of one service and its
 * relay's two publishes take at most eight (six handlers exhausted compute's pool: its RPCs timed out).
 */
export const IN_PROCESS_HANDLERS_AT_ONCE = 3;

/**
 * How many publishes a relay may have under way at once. With one, a relay read no new rows until
 * every handler of its last batch had ended, so an event committed just after a read waited for
 * that whole batch before it was even queued: the tail of upload-to-invocation with 16 uploads at
 * once (bench:compute). Two keep a batch queued behind the one being handled; each holds one
 * connection of its service's pool for its transaction (see IN_PROCESS_HANDLERS_AT_ONCE).
 */
export const IN_PROCESS_PUBLISHES_AT_ONCE = 2;

/**
 * The embedded default's transport: delivers each published event to every subscribed group in
 * the same process before `publish` resolves, so the relay marks an outbox row sent only after
 * its consumers have handled it (a crash in between redelivers; consumers deduplicate). Ordered
 * as Kafka orders them: one key's events in publication order within a group, also across
 * publishes under way at once (a key's events wait for those an earlier publish handed over, and
 * fail unhandled when one of those failed, so that redelivery keeps the order), while groups and
 * keys are handled side by side (at most IN_PROCESS_HANDLERS_AT_ONCE events at a time). A failed
 * delivery fails the publish once every other delivery of the batch has ended.
 */
export function createInProcessTransport(): EventTransport {
  const subscriptions: Subscription[] = [];
  const slots = createSlots(IN_PROCESS_HANDLERS_AT_ONCE);
  /** The last delivery handed over per group and key, while it is under way. */
  const lastDelivery = new Map<string, Promise<void>>();
  const deliverInOrder = (queue: KeyQueue): Promise<void> => {
    const id = `${queue.subscription.group}\n${queue.messages[0]!.key}`;
    const earlier = lastDelivery.get(id);
    const delivery = earlier
      ? earlier.then(
          () => drain(queue, slots),
          () => Promise.reject(new Error(`an earlier event of key ${queue.messages[0]!.key} was not delivered to ${queue.subscription.group}`)),
        )
      : drain(queue, slots);
    lastDelivery.set(id, delivery);
    const forget = () => {
      if (lastDelivery.get(id) === delivery) lastDelivery.delete(id);
    };
    delivery.then(forget, forget);
    return delivery;
  };
  return {
    publishesAtOnce: IN_PROCESS_PUBLISHES_AT_ONCE,
    async publish(messages: EventMessage[]) {
      // Handed over before the first await, so a publish that starts later queues behind this one.
      const deliveries = subscriptions.flatMap((subscription) => keyQueues(subscription, messages)).map(deliverInOrder);
      const failed = (await Promise.allSettled(deliveries)).find((outcome) => outcome.status === "rejected");
      if (failed) throw failed.reason;
    },
    async subscribe(subscription: Subscription) {
      subscriptions.push(subscription);
      return async () => {
        const at = subscriptions.indexOf(subscription);
        if (at >= 0) subscriptions.splice(at, 1);
      };
    },
    status: () => "ready",
    async close() {
      subscriptions.length = 0;
    },
  };
}

/** One group's events of one key, to be handled in order. */
interface KeyQueue {
  subscription: Subscription;
  messages: EventMessage[];
}

/** The messages a subscription takes, by key, in publication order. */
function keyQueues(subscription: Subscription, messages: EventMessage[]): KeyQueue[] {
  const byKey = new Map<string, KeyQueue>();
  for (const message of messages) {
    if (!subscription.topics.includes(message.topic)) continue;
    const queue = byKey.get(message.key);
    if (queue) queue.messages.push(message);
    else byKey.set(message.key, { subscription, messages: [message] });
  }
  return [...byKey.values()];
}

/** Handles a queue's messages one after another, each in a slot; stops at the first failure. */
async function drain({ subscription, messages }: KeyQueue, slots: Slots): Promise<void> {
  for (const message of messages) {
    await slots.acquire();
    try {
      await subscription.handle(message);
    } finally {
      slots.release();
    }
  }
}

interface Slots {
  acquire(): Promise<void>;
  release(): void;
}

/** A counting semaphore: `acquire` waits, first come first served, while all `size` slots are taken. */
function createSlots(size: number): Slots {
  let free = size;
  const waiting: (() => void)[] = [];
  return {
    acquire() {
      if (free > 0) {
        free--;
        return Promise.resolve();
      }
      return new Promise((resolve) => waiting.push(resolve));
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}
