/** Runs tasks one at a time per key; tasks under different keys run concurrently. */
export interface KeyedLock {
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
}

/**
 * A per-key mutex in one process: it keeps an object's data file and its metadata sidecar (or a
 * multipart upload's parts and their completion) from being interleaved by concurrent requests.
 */
export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      const result = previous.catch(() => undefined).then(task);
      const tail = result.catch(() => undefined);
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      return result;
    },
  };
}
