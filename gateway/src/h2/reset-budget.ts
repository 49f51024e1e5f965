/**
 * A token bucket for the RST_STREAM frames an endpoint sends. Servers count the resets they receive
 * as a rapid-reset attack (CVE-2023-44487; nghttp2, and so Node's http2 server, sends GOAWAY after a
 * burst of 1,000 at 33 per second): a client that cancels many calls at once (a deadline storm,
 * oversized answers) must stay under that, or the connection that every other caller shares goes.
 */
export class ResetBudget {
  private tokens: number;
  private updatedAt = performance.now();

  /** `burst` resets at once, refilled at `perSecond`. */
  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
  ) {
    this.tokens = burst;
  }

  /** Whether one more reset fits now; takes it when it does. */
  take(): boolean {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.updatedAt) / 1000) * this.perSecond);
    this.updatedAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
