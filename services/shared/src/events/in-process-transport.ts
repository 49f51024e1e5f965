import type { EventMessage, EventTransport, Subscription } from "./transport";

/**
 * The embedded default's transport: delivers each published event to every subscribed group in
 * the same process before `publish` resolves, so the relay marks an outbox row sent only after
 * its consumers have handled it (a crash in between redelivers; consumers deduplicate).
 */
export function createInProcessTransport(): EventTransport {
  const subscriptions: Subscription[] = [];
  return {
    async publish(messages: EventMessage[]) {
      for (const message of messages) {
        for (const subscription of subscriptions) {
          if (subscription.topics.includes(message.topic)) await subscription.handle(message);
        }
      }
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
