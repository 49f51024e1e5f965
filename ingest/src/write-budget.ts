/**
 * Bounds the bytes of derived chunks between "handed to compression" and "written", so a reader
 * faster than the disk cannot fill memory: the ingest loop calls `settle()` after each input chunk
 * and waits there while more than `limit` bytes are in flight. Failures are not reported here;
 * each writer reports its own when it finishes.
 */
export class WriteBudget {
  private inFlight = 0;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly limit: number) {}

  /** Counts `bytes` as in flight until `work` settles. */
  track(work: Promise<void>, bytes: number): void {
    this.inFlight += bytes;
    const done = work
      .catch(() => undefined)
      .then(() => {
        this.inFlight -= bytes;
        this.pending.delete(done);
      });
    this.pending.add(done);
  }

  /** Resolves once at most `limit` bytes are in flight. */
  async settle(): Promise<void> {
    while (this.inFlight > this.limit && this.pending.size > 0) await Promise.race(this.pending);
  }
}
