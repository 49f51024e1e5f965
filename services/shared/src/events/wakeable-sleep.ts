/** A pause that a wake-up ends early; see `createWakeableSleep`. */
export interface WakeableSleep {
  /** Resolves after `ms`, or at once when woken meanwhile or since the last pause ended. */
  sleep(ms: number): Promise<void>;
  wake(): void;
}

/**
 * The pause of a polling loop that can be told there is work. A wake-up that arrives while the loop
 * is busy rather than asleep (a commit landing while the relay reads an outbox that was still empty
 * to it) is kept for the next pause, which then returns at once: dropped, as it once was, it left
 * that event waiting out a whole polling interval.
 */
export function createWakeableSleep(): WakeableSleep {
  let woken = false;
  let endPause: (() => void) | undefined;
  return {
    sleep(ms) {
      if (woken) {
        woken = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          endPause = undefined;
          resolve();
        }, ms);
        endPause = () => {
          endPause = undefined;
          clearTimeout(timer);
          resolve();
        };
      });
    },
    wake() {
      if (endPause) endPause();
      else woken = true;
    },
  };
}
