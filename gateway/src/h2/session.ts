import type { Duplex } from "node:stream";
import {
  DEFAULT_MAX_FRAME_SIZE,
  DEFAULT_WINDOW_SIZE,
  ErrorCode,
  FRAME_HEADER_BYTES,
  Flags,
  FrameType,
  MAX_WINDOW_SIZE,
  PREFACE,
  Setting,
  frame,
  goAwayFrame,
  rstStreamFrame,
  settingsFrame,
  unpadded,
  windowUpdateFrame,
} from "./frames";
import { HpackDecoder, HpackError, encodeHeaders, type HeaderField } from "./hpack";
import { Keepalive } from "./keepalive";
import { ResetBudget } from "./reset-budget";

/** What a stream tells its owner, in order: headers, data, then exactly one of end or abort. */
export interface StreamHandler {
  /** Response headers, or trailers; `endStream` when no more frames follow. */
  onHeaders(fields: HeaderField[], endStream: boolean): void;
  onData(chunk: Buffer): void;
  /** The peer ended the stream normally. */
  onEnd(): void;
  /** The stream ended without completing: reset, refused, or its connection was lost. */
  onAbort(error: StreamAbortedError): void;
}

/** Why a stream ended early. `refused`: the peer did not process it (RFC 9113 §8.7), so a retry is safe. */
export class StreamAbortedError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

/** A request in flight. */
export interface ClientStream {
  /**
   * Abandons the stream; its handler hears nothing more. It is reset (RST_STREAM CANCEL) while the
   * session's reset budget lasts; past it the peer finishes the stream (its own deadline ends it)
   * and what it sends is discarded, so that a burst of cancels never looks like a reset flood.
   */
  cancel(): void;
  /** Checks the connection carrying the stream with a PING (a call timed out: is the peer still there?). */
  probe(): void;
}

/** Limits this endpoint advertises. */
export interface SessionOptions {
  /** Receive window per stream and for the connection (default 16 MiB). */
  windowSize?: number;
  /** Largest frame the peer may send (default 1 MiB). */
  maxFrameSize?: number;
  /**
   * Requests after which the connection stops taking new ones and closes once they finish (default:
   * until stream ids run out, about a billion). Behind an L4 load balancer a connection stays with
   * one backend; opening a fresh one now and then spreads the load over the backends again.
   */
  maxRequests?: number;
  /** Silence after which a PING checks the peer, in ms; 0 turns it off (default 5 s). */
  keepaliveIntervalMs?: number;
  /** How long a PING may go unanswered before the connection is closed as dead, in ms (default 5 s). */
  keepaliveTimeoutMs?: number;
  /** RST_STREAM frames sent at once, then per second (default 500 and 16: half of nghttp2's limits). */
  resetBurst?: number;
  resetsPerSecond?: number;
}

interface OpenStream {
  readonly id: number;
  /** Replaced by `DISCARD` when the stream is abandoned without a reset. */
  handler: StreamHandler;
  sendWindow: number;
  /** Request body bytes still to send (flow control holds them back). */
  unsent: Buffer | undefined;
  /** Bytes received and not yet returned to the peer with WINDOW_UPDATE. */
  unacknowledged: number;
}

interface PendingRequest {
  readonly fields: readonly HeaderField[];
  readonly body: Buffer;
  readonly handler: StreamHandler;
  stream?: OpenStream;
  cancelled?: boolean;
}

/** The handler of a stream given up without a reset: the peer's frames are taken and dropped. */
const DISCARD: StreamHandler = { onHeaders() {}, onData() {}, onEnd() {}, onAbort() {} };

const MAX_STREAM_ID = 2 ** 31 - 1;
/** Largest header block accepted from the peer: headers and trailers of a gRPC call are small. */
const MAX_HEADER_BLOCK_BYTES = 256 * 1024;
/** Client streams have odd ids, 1 to 2^31 - 1. */
const MAX_CLIENT_STREAMS = 2 ** 30;

/**
 * The client side of one HTTP/2 connection over cleartext or TLS (RFC 9113), reduced to what unary
 * gRPC needs: requests with a complete body, responses streamed back to a handler. It keeps the
 * connection's state (HPACK, flow control in both directions, SETTINGS, PING, GOAWAY, stream
 * resets) and batches the frames written within one tick into one socket write.
 */
export class H2ClientSession {
  private readonly streams = new Map<number, OpenStream>();
  /** Requests waiting for the peer's MAX_CONCURRENT_STREAMS. */
  private readonly waiting: PendingRequest[] = [];
  private readonly blocked = new Set<OpenStream>();
  private readonly decoder = new HpackDecoder();
  private readonly windowSize: number;
  private readonly maxFrameSize: number;
  private readonly maxRequests: number;
  private readonly keepalive: Keepalive;
  private readonly resetBudget: ResetBudget;
  private nextStreamId = 1;
  private goingAway = false;
  private closed = false;
  private peerMaxFrameSize = DEFAULT_MAX_FRAME_SIZE;
  private peerInitialWindow = DEFAULT_WINDOW_SIZE;
  private peerMaxConcurrentStreams = Infinity;
  private connectionSendWindow = DEFAULT_WINDOW_SIZE;
  private connectionUnacknowledged = 0;
  private inbound: Buffer | undefined;
  private headerBlock: { streamId: number; endStream: boolean; fragments: Buffer[]; size: number } | undefined;
  private corked = false;

  constructor(
    private readonly socket: Duplex,
    options: SessionOptions = {},
  ) {
    this.windowSize = options.windowSize ?? 16 * 1024 * 1024;
    this.maxFrameSize = options.maxFrameSize ?? 1024 * 1024;
    this.maxRequests = Math.min(options.maxRequests ?? MAX_CLIENT_STREAMS, MAX_CLIENT_STREAMS);
    this.resetBudget = new ResetBudget(options.resetBurst ?? 500, options.resetsPerSecond ?? 16);
    this.keepalive = new Keepalive(
      { intervalMs: options.keepaliveIntervalMs ?? 5_000, timeoutMs: options.keepaliveTimeoutMs ?? 5_000 },
      (payload) => this.write(frame(FrameType.PING, 0, 0, payload)),
      (reason) => this.destroy(`the peer stopped answering: ${reason}`),
    );
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (error) => this.destroy(`connection failed: ${error.message}`));
    socket.on("end", () => this.destroy("connection closed by the peer"));
    socket.on("close", () => this.destroy("connection closed"));
    this.write(
      PREFACE,
      settingsFrame([
        [Setting.ENABLE_PUSH, 0],
        [Setting.INITIAL_WINDOW_SIZE, this.windowSize],
        [Setting.MAX_FRAME_SIZE, this.maxFrameSize],
      ]),
    );
    // The connection window starts at 64 KiB whatever SETTINGS say (RFC 9113 §6.9.2).
    if (this.windowSize > DEFAULT_WINDOW_SIZE) this.write(windowUpdateFrame(0, this.windowSize - DEFAULT_WINDOW_SIZE));
  }

  /** Whether new requests may start here; a closing or exhausted connection must be replaced. */
  get usable(): boolean {
    return !this.closed && !this.goingAway;
  }

  /** Starts a request: HEADERS (and CONTINUATION) from `fields`, then `body` as DATA ending the stream. */
  request(fields: readonly HeaderField[], body: Buffer, handler: StreamHandler): ClientStream {
    const pending: PendingRequest = { fields, body, handler };
    if (!this.usable) {
      queueMicrotask(() => handler.onAbort(new StreamAbortedError("connection is closing", ErrorCode.REFUSED_STREAM, true)));
    } else if (this.streams.size >= this.peerMaxConcurrentStreams) {
      this.waiting.push(pending);
    } else {
      this.open(pending);
    }
    return { cancel: () => this.cancel(pending), probe: () => this.probe() };
  }

  private probe(): void {
    if (!this.closed) this.keepalive.probe();
  }

  /** Ends the connection gracefully: no new streams, open ones finish first. */
  close(): void {
    if (this.closed || this.goingAway) return;
    this.goingAway = true;
    this.write(goAwayFrame(0, ErrorCode.NO_ERROR));
    this.refuseWaiting();
    if (this.streams.size === 0) this.socket.end();
  }

  private open(pending: PendingRequest): void {
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const stream: OpenStream = { id, handler: pending.handler, sendWindow: this.peerInitialWindow, unsent: pending.body, unacknowledged: 0 };
    pending.stream = stream;
    this.streams.set(id, stream);
    this.writeHeaders(id, encodeHeaders(pending.fields), pending.body.length === 0);
    if (pending.body.length > 0) this.sendBody(stream);
    // Its requests are spent: finish what is open here; the owner opens a new connection.
    if ((this.nextStreamId - 1) / 2 >= this.maxRequests) this.close();
  }

  private cancel(pending: PendingRequest): void {
    if (pending.cancelled) return;
    pending.cancelled = true;
    const stream = pending.stream;
    if (stream === undefined) {
      const at = this.waiting.indexOf(pending);
      if (at >= 0) this.waiting.splice(at, 1);
      return;
    }
    if (!this.streams.has(stream.id)) return;
    if (!this.resetBudget.take()) {
      stream.handler = DISCARD;
      return;
    }
    this.write(rstStreamFrame(stream.id, ErrorCode.CANCEL));
    this.forget(stream);
  }

  private writeHeaders(streamId: number, block: Buffer, endStream: boolean): void {
    const endFlag = endStream ? Flags.END_STREAM : 0;
    if (block.length <= this.peerMaxFrameSize) {
      this.write(frame(FrameType.HEADERS, endFlag | Flags.END_HEADERS, streamId, block));
      return;
    }
    let offset = 0;
    while (offset < block.length) {
      const piece = block.subarray(offset, offset + this.peerMaxFrameSize);
      offset += piece.length;
      const type = piece.byteOffset === block.byteOffset ? FrameType.HEADERS : FrameType.CONTINUATION;
      const flags = (type === FrameType.HEADERS ? endFlag : 0) | (offset >= block.length ? Flags.END_HEADERS : 0);
      this.write(frame(type, flags, streamId, piece));
    }
  }

  /** Sends as much of the stream's body as both send windows allow; the rest waits for WINDOW_UPDATE. */
  private sendBody(stream: OpenStream): void {
    while (stream.unsent !== undefined) {
      const size = Math.min(stream.unsent.length, stream.sendWindow, this.connectionSendWindow, this.peerMaxFrameSize);
      if (size <= 0) {
        this.blocked.add(stream);
        return;
      }
      const chunk = stream.unsent.subarray(0, size);
      stream.unsent = size < stream.unsent.length ? stream.unsent.subarray(size) : undefined;
      stream.sendWindow -= size;
      this.connectionSendWindow -= size;
      this.write(frame(FrameType.DATA, stream.unsent === undefined ? Flags.END_STREAM : 0, stream.id, chunk));
    }
    this.blocked.delete(stream);
  }

  private resumeBlocked(): void {
    for (const stream of [...this.blocked]) {
      if (this.connectionSendWindow <= 0) return;
      this.sendBody(stream);
    }
  }

  private receive(chunk: Buffer): void {
    this.keepalive.noteReceived();
    const data = this.inbound ? Buffer.concat([this.inbound, chunk]) : chunk;
    let offset = 0;
    while (!this.closed && data.length - offset >= FRAME_HEADER_BYTES) {
      const length = data.readUIntBE(offset, 3);
      if (length > this.maxFrameSize) return this.fail(ErrorCode.FRAME_SIZE_ERROR, `frame of ${length} bytes exceeds ${this.maxFrameSize}`);
      const end = offset + FRAME_HEADER_BYTES + length;
      if (data.length < end) break;
      const type = data[offset + 3]!;
      const flags = data[offset + 4]!;
      const streamId = data.readUInt32BE(offset + 5) & MAX_STREAM_ID;
      this.onFrame(type, flags, streamId, data.subarray(offset + FRAME_HEADER_BYTES, end));
      offset = end;
    }
    // Copied, so that a small remainder does not pin the whole chunk.
    this.inbound = offset < data.length && !this.closed ? Buffer.from(data.subarray(offset)) : undefined;
  }

  private onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.headerBlock && type !== FrameType.CONTINUATION) return this.fail(ErrorCode.PROTOCOL_ERROR, "header block interrupted");
    switch (type) {
      case FrameType.DATA:
        return this.onData(flags, streamId, payload);
      case FrameType.HEADERS:
        return this.onHeaders(flags, streamId, payload);
      case FrameType.CONTINUATION:
        return this.onContinuation(flags, streamId, payload);
      case FrameType.RST_STREAM:
        return this.onReset(streamId, payload);
      case FrameType.SETTINGS:
        return this.onSettings(flags, streamId, payload);
      case FrameType.PUSH_PROMISE:
        return this.fail(ErrorCode.PROTOCOL_ERROR, "push promised though disabled");
      case FrameType.PING:
        return this.onPing(flags, streamId, payload);
      case FrameType.GOAWAY:
        return this.onGoAway(streamId, payload);
      case FrameType.WINDOW_UPDATE:
        return this.onWindowUpdate(streamId, payload);
      default:
        return; // PRIORITY and unknown frame types are ignored (RFC 9113 §5.5).
    }
  }

  private onData(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) return this.fail(ErrorCode.PROTOCOL_ERROR, "DATA on stream 0");
    const body = unpadded(payload, flags);
    if (body === undefined) return this.fail(ErrorCode.PROTOCOL_ERROR, "bad DATA padding");
    this.acknowledgeConnection(payload.length);
    const stream = this.streams.get(streamId);
    if (stream === undefined) return; // cancelled or reset here: the bytes still count against the connection
    if (body.length > 0) stream.handler.onData(body);
    if (flags & Flags.END_STREAM) return this.finish(stream);
    stream.unacknowledged += payload.length;
    if (stream.unacknowledged >= this.windowSize / 2) {
      this.write(windowUpdateFrame(stream.id, stream.unacknowledged));
      stream.unacknowledged = 0;
    }
  }

  private acknowledgeConnection(bytes: number): void {
    this.connectionUnacknowledged += bytes;
    if (this.connectionUnacknowledged >= this.windowSize / 2) {
      this.write(windowUpdateFrame(0, this.connectionUnacknowledged));
      this.connectionUnacknowledged = 0;
    }
  }

  private onHeaders(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) return this.fail(ErrorCode.PROTOCOL_ERROR, "HEADERS on stream 0");
    let block = unpadded(payload, flags);
    if (block !== undefined && flags & Flags.PRIORITY) block = block.length >= 5 ? block.subarray(5) : undefined;
    if (block === undefined) return this.fail(ErrorCode.PROTOCOL_ERROR, "malformed HEADERS");
    const endStream = (flags & Flags.END_STREAM) !== 0;
    if (flags & Flags.END_HEADERS) return this.deliverHeaders(streamId, endStream, block);
    this.headerBlock = { streamId, endStream, fragments: [block], size: block.length };
  }

  private onContinuation(flags: number, streamId: number, payload: Buffer): void {
    const block = this.headerBlock;
    if (block === undefined || block.streamId !== streamId) return this.fail(ErrorCode.PROTOCOL_ERROR, "unexpected CONTINUATION");
    block.fragments.push(payload);
    block.size += payload.length;
    if (block.size > MAX_HEADER_BLOCK_BYTES) return this.fail(ErrorCode.PROTOCOL_ERROR, `header block exceeds ${MAX_HEADER_BLOCK_BYTES} bytes`);
    if ((flags & Flags.END_HEADERS) === 0) return;
    this.headerBlock = undefined;
    this.deliverHeaders(streamId, block.endStream, Buffer.concat(block.fragments));
  }

  private deliverHeaders(streamId: number, endStream: boolean, block: Buffer): void {
    let fields: HeaderField[];
    try {
      // Decoded even for streams given up here: the HPACK table is the connection's.
      fields = this.decoder.decode(block);
    } catch (error) {
      if (error instanceof HpackError) return this.fail(ErrorCode.COMPRESSION_ERROR, error.message);
      throw error;
    }
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    stream.handler.onHeaders(fields, endStream);
    if (endStream && this.streams.has(streamId)) this.finish(stream);
  }

  private onReset(streamId: number, payload: Buffer): void {
    if (streamId === 0) return this.fail(ErrorCode.PROTOCOL_ERROR, "RST_STREAM on stream 0");
    if (payload.length !== 4) return this.fail(ErrorCode.FRAME_SIZE_ERROR, "RST_STREAM must be 4 bytes");
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    const code = payload.readUInt32BE(0);
    this.forget(stream);
    stream.handler.onAbort(new StreamAbortedError(`stream reset by the peer (HTTP/2 error ${code})`, code, code === ErrorCode.REFUSED_STREAM));
  }

  private onSettings(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) return this.fail(ErrorCode.PROTOCOL_ERROR, "SETTINGS on a stream");
    if (flags & Flags.ACK) return;
    if (payload.length % 6 !== 0) return this.fail(ErrorCode.FRAME_SIZE_ERROR, "SETTINGS length is not a multiple of 6");
    for (let offset = 0; offset < payload.length; offset += 6) {
      const problem = this.applySetting(payload.readUInt16BE(offset), payload.readUInt32BE(offset + 2));
      if (problem) return this.fail(problem.code, problem.message);
    }
    this.write(frame(FrameType.SETTINGS, Flags.ACK, 0));
    this.resumeBlocked();
    this.startWaiting();
  }

  private applySetting(id: number, value: number): { code: number; message: string } | undefined {
    switch (id) {
      case Setting.INITIAL_WINDOW_SIZE: {
        if (value > MAX_WINDOW_SIZE) return { code: ErrorCode.FLOW_CONTROL_ERROR, message: "initial window too large" };
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
        return undefined;
      }
      case Setting.MAX_FRAME_SIZE:
        if (value < DEFAULT_MAX_FRAME_SIZE || value > 2 ** 24 - 1) return { code: ErrorCode.PROTOCOL_ERROR, message: "bad MAX_FRAME_SIZE" };
        this.peerMaxFrameSize = value;
        return undefined;
      case Setting.MAX_CONCURRENT_STREAMS:
        this.peerMaxConcurrentStreams = value;
        return undefined;
      default:
        // HEADER_TABLE_SIZE only bounds a dynamic table our encoder never uses; the rest do not apply.
        return undefined;
    }
  }

  private onPing(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) return this.fail(ErrorCode.PROTOCOL_ERROR, "PING on a stream");
    if (payload.length !== 8) return this.fail(ErrorCode.FRAME_SIZE_ERROR, "PING must be 8 bytes");
    if ((flags & Flags.ACK) === 0) this.write(frame(FrameType.PING, Flags.ACK, 0, payload));
    else this.keepalive.onAck(payload);
  }

  private onGoAway(streamId: number, payload: Buffer): void {
    if (streamId !== 0) return this.fail(ErrorCode.PROTOCOL_ERROR, "GOAWAY on a stream");
    if (payload.length < 8) return this.fail(ErrorCode.FRAME_SIZE_ERROR, "GOAWAY too short");
    const lastStreamId = payload.readUInt32BE(0) & MAX_STREAM_ID;
    const code = payload.readUInt32BE(4);
    this.goingAway = true;
    for (const stream of [...this.streams.values()]) {
      if (stream.id <= lastStreamId) continue;
      this.forget(stream);
      stream.handler.onAbort(new StreamAbortedError(`the peer is going away (HTTP/2 error ${code})`, ErrorCode.REFUSED_STREAM, true));
    }
    this.refuseWaiting();
    if (this.streams.size === 0) this.socket.end();
  }

  private onWindowUpdate(streamId: number, payload: Buffer): void {
    if (payload.length !== 4) return this.fail(ErrorCode.FRAME_SIZE_ERROR, "WINDOW_UPDATE must be 4 bytes");
    const increment = payload.readUInt32BE(0) & MAX_WINDOW_SIZE;
    if (streamId === 0) {
      if (increment === 0 || this.connectionSendWindow + increment > MAX_WINDOW_SIZE) return this.fail(ErrorCode.FLOW_CONTROL_ERROR, "bad connection WINDOW_UPDATE");
      this.connectionSendWindow += increment;
      return this.resumeBlocked();
    }
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    if (increment === 0 || stream.sendWindow + increment > MAX_WINDOW_SIZE) return this.resetStream(stream, ErrorCode.FLOW_CONTROL_ERROR, "bad stream WINDOW_UPDATE");
    stream.sendWindow += increment;
    if (stream.unsent !== undefined) this.sendBody(stream);
  }

  private finish(stream: OpenStream): void {
    // The peer answered before taking the whole request: stop sending it (RFC 9113 §8.1).
    if (stream.unsent !== undefined) this.write(rstStreamFrame(stream.id, ErrorCode.NO_ERROR));
    this.forget(stream);
    stream.handler.onEnd();
  }

  private resetStream(stream: OpenStream, code: number, message: string): void {
    this.write(rstStreamFrame(stream.id, code));
    this.forget(stream);
    stream.handler.onAbort(new StreamAbortedError(message, code, false));
  }

  /** Drops a stream from every table; starts waiting requests and ends a draining connection. */
  private forget(stream: OpenStream): void {
    this.streams.delete(stream.id);
    this.blocked.delete(stream);
    if (this.goingAway && this.streams.size === 0 && !this.closed) this.socket.end();
    else this.startWaiting();
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && this.usable && this.streams.size < this.peerMaxConcurrentStreams) this.open(this.waiting.shift()!);
  }

  private refuseWaiting(): void {
    for (const pending of this.waiting.splice(0)) {
      pending.handler.onAbort(new StreamAbortedError("connection is closing", ErrorCode.REFUSED_STREAM, true));
    }
  }

  /** A connection error (RFC 9113 §5.4.1): GOAWAY with the code, then the connection ends. */
  private fail(code: number, message: string): void {
    this.write(goAwayFrame(0, code));
    this.destroy(`HTTP/2 protocol error: ${message}`);
  }

  private destroy(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.keepalive.stop();
    const error = new StreamAbortedError(reason, ErrorCode.INTERNAL_ERROR, false);
    const open = [...this.streams.values()];
    this.streams.clear();
    this.blocked.clear();
    for (const stream of open) stream.handler.onAbort(error);
    for (const pending of this.waiting.splice(0)) pending.handler.onAbort(new StreamAbortedError(reason, ErrorCode.REFUSED_STREAM, true));
    // A GOAWAY just written is still corked: flush it before the socket goes.
    if (this.corked) this.uncork();
    this.socket.destroy();
  }

  /** Frames written in one tick leave in one socket write. */
  private write(...buffers: Buffer[]): void {
    if (this.socket.destroyed || this.socket.writableEnded) return;
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(this.uncork);
    }
    for (const buffer of buffers) this.socket.write(buffer);
  }

  private readonly uncork = (): void => {
    if (!this.corked) return;
    this.corked = false;
    this.socket.uncork();
  };
}
