import { createWakeableSleep } from "./wakeable-sleep";

const HOUR = 3_600_000;

test("a wake-up ends a pause in progress", async () => {
  const pause = createWakeableSleep();
  const sleeping = pause.sleep(HOUR);
  pause.wake();
  await expect(sleeping).resolves.toBeUndefined();
});

test("a wake-up while busy is kept for the next pause, and only that one", async () => {
  jest.useFakeTimers();
  try {
    const pause = createWakeableSleep();
    pause.wake();
    await expect(pause.sleep(HOUR)).resolves.toBeUndefined();
    let ended = false;
    void pause.sleep(1_000).then(() => (ended = true));
    await jest.advanceTimersByTimeAsync(999);
    expect(ended).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(ended).toBe(true);
  } finally {
    jest.useRealTimers();
  }
});

test("a wake-up after a pause timed out is kept for the next one", async () => {
  jest.useFakeTimers();
  try {
    const pause = createWakeableSleep();
    const first = pause.sleep(10);
    await jest.advanceTimersByTimeAsync(10);
    await first;
    pause.wake();
    await expect(pause.sleep(HOUR)).resolves.toBeUndefined();
  } finally {
    jest.useRealTimers();
  }
});
