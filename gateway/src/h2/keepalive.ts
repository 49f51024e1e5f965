/** How a connection proves it is alive. */
export interface KeepaliveOptions {
  /** The check's period, in ms: a PING goes out at the first check that finds the whole period silent; 0 turns keepalive off. */
  intervalMs: number;
  /** How long, in ms, a PING may go unanswered before the connection counts as dead. */
  timeoutMs: number;
}

/**
 * Notices a peer that vanished without closing the socket (a pod killed, a node lost, a NAT entry
 * dropped): TCP alone would wait for its retransmission timeout, minutes. After `intervalMs` in
 * which nothing arrived, and whenever the owner asks (`probe`, e.g. when a call times out), it sends
 * a PING; when neither its ack nor anything else arrives within `timeoutMs`, the connection is dead
 * (as in gRPC's keepalive: a busy peer's ack may queue behind the data it is sending).
 */
export class Keepalive {
  private received = false;
  private sent = 0;
  private outstanding: Buffer | undefined;
  private ackTimer: NodeJS.Timeout | undefined;
  private readonly interval: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: KeepaliveOptions,
    private readonly sendPing: (payload: Buffer) => void,
    private readonly onDead: (reason: string) => void,
  ) {
    if (options.intervalMs > 0) this.interval = setInterval(this.tick, options.intervalMs).unref();
  }

  /** Bytes arrived from the peer: the connection was alive a moment ago. */
  noteReceived(): void {
    this.received = true;
  }

  /** Sends a PING now, unless one is already waiting for its ack. */
  probe(): void {
    if (this.outstanding !== undefined || this.options.intervalMs <= 0) return;
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(++this.sent, 4);
    this.outstanding = payload;
    this.received = false;
    this.sendPing(payload);
    this.ackTimer = setTimeout(this.expire, this.options.timeoutMs).unref();
  }

  /** A PING ack arrived; one that answers the outstanding PING clears it. */
  onAck(payload: Buffer): void {
    if (this.outstanding === undefined || !payload.equals(this.outstanding)) return;
    this.outstanding = undefined;
    clearTimeout(this.ackTimer);
  }

  stop(): void {
    clearInterval(this.interval);
    clearTimeout(this.ackTimer);
  }

  private readonly expire = (): void => {
    if (!this.received) return this.onDead(`nothing received within ${this.options.timeoutMs} ms of a PING`);
    this.outstanding = undefined;
  };

  private readonly tick = (): void => {
    if (this.outstanding !== undefined) return;
    if (!this.received) this.probe();
    this.received = false;
  };
}
