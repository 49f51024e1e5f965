import net from "node:net";
import type { Duplex } from "node:stream";
import { fromBinary, toBinary, type DescMessage, type DescMethodUnary, type Message, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Context } from "@opentelemetry/api";
import { frameGrpcMessage, injectTraceContext, methodPath, unframeGrpcMessage } from "@hangar/shared";
import type { HeaderField } from "./h2/hpack";
import { H2ClientSession, type ClientStream, type SessionOptions, type StreamAbortedError, type StreamHandler } from "./h2/session";

/** Options of one upstream call. */
export interface UnaryCallOptions {
  /** Request metadata (the signed principal). Trace context is added here. */
  headers: Record<string, string>;
  /** Deadline: sent as `grpc-timeout` and enforced locally. */
  timeoutMs: number;
  /** The trace the call belongs to (default: the active context). */
  traceContext?: Context;
}

/** A gRPC client for unary calls to one service. */
export interface GrpcUnaryClient {
  call<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>, input: Message, options: UnaryCallOptions): Promise<MessageShape<O>>;
  close(): void;
}

/**
 * Calls per connection before the client opens a new one. Behind a Kubernetes Service (L4), a
 * connection stays with one pod; renewing it now and then spreads the gateway's calls over the
 * service's replicas. A handshake per 10,000 calls costs nothing measurable.
 */
const REQUESTS_PER_CONNECTION = 10_000;

/** Largest response the gateway accepts from a service (the gRPC default). */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/**
 * The gateway's gRPC client: unary calls over one HTTP/2 connection per service, reopened when it
 * goes away. It speaks the gRPC wire format (length-prefixed protobuf, `grpc-timeout`,
 * `grpc-status` and `grpc-message` in trailers, or in headers for trailers-only errors) over the
 * gateway's own HTTP/2 client session (`./h2`). Node's http2 client streams cost about 50 µs of
 * CPU per call on the development machine (an HTTP server forwarding each request over them used
 * 75 µs, over a plain socket 25), for stream machinery unary calls never use; with this session
 * the gateway's CPU per request fell from about 190 to 80 µs (A/B against a stub service;
 * `npm run bench:grpc-clients` re-runs it). `connection` tunes each connection (keepalive, resets).
 */
export function createGrpcUnaryClient(baseUrl: string, connection: SessionOptions = {}): GrpcUnaryClient {
  const target = new URL(baseUrl);
  // Services listen in cleartext HTTP/2 (h2c) on the cluster's network (deploy/); encryption between
  // pods, where wanted, belongs to a service mesh's sidecars (mutual TLS).
  if (target.protocol !== "http:") throw new Error(`service URL ${baseUrl}: the gateway speaks h2c, use http://`);
  let session: H2ClientSession | undefined;
  const connected = (): H2ClientSession => {
    if (!session?.usable) session = new H2ClientSession(openSocket(target), { maxRequests: REQUESTS_PER_CONNECTION, ...connection });
    return session;
  };
  return {
    call(method, input, options) {
      const fields: HeaderField[] = [
        [":method", "POST"],
        [":scheme", "http"],
        [":authority", target.host],
        [":path", methodPath(method)],
        ["content-type", "application/grpc+proto"],
        ["te", "trailers"],
        ["grpc-timeout", `${Math.max(1, Math.ceil(options.timeoutMs))}m`],
      ];
      const metadata: Record<string, string> = { ...options.headers };
      injectTraceContext(metadata, options.traceContext);
      for (const name of Object.keys(metadata)) fields.push([name.toLowerCase(), metadata[name]!]);
      const body = frameGrpcMessage(toBinary(method.input, input as MessageShape<typeof method.input>));
      return new Promise((resolve, reject) => {
        const call = new UnaryCall(method.output, options.timeoutMs, resolve, reject, (handler) => connected().request(fields, body, handler));
        call.start();
      });
    },
    close() {
      session?.close();
      session = undefined;
    },
  };
}

function openSocket(target: URL): Duplex {
  const socket = net.connect({ host: target.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(target.port || 80) });
  socket.setNoDelay(true);
  // An idle upstream connection must not keep the process alive.
  socket.unref();
  return socket;
}

/** One call's response: status from headers or trailers, the framed message, the deadline. */
class UnaryCall<O extends DescMessage> implements StreamHandler {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private httpStatus: string | undefined;
  private grpcStatus: string | undefined;
  private grpcMessage = "";
  private stream: ClientStream | undefined;
  private settled = false;
  private retried = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly output: O,
    timeoutMs: number,
    private readonly resolve: (message: MessageShape<O>) => void,
    private readonly reject: (error: ConnectError) => void,
    /** Sends the request on the client's current connection. */
    private readonly send: (handler: StreamHandler) => ClientStream,
  ) {
    this.timer = setTimeout(() => this.expire(), timeoutMs);
  }

  start(): void {
    this.stream = this.send(this);
  }

  onHeaders(fields: HeaderField[]): void {
    for (const [name, value] of fields) {
      if (name === ":status") this.httpStatus = value;
      else if (name === "grpc-status") this.grpcStatus = value;
      else if (name === "grpc-message") this.grpcMessage = decodeGrpcMessage(value);
    }
  }

  onData(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > MAX_RESPONSE_BYTES + 5) return this.fail(new ConnectError("upstream response too large", Code.ResourceExhausted));
    this.chunks.push(chunk);
  }

  onEnd(): void {
    if (this.grpcStatus === undefined) return this.settle(new ConnectError(...statusWithoutGrpcStatus(this.httpStatus)));
    const code = Number(this.grpcStatus);
    if (code !== 0) return this.settle(new ConnectError(this.grpcMessage, Number.isInteger(code) && code > 0 && code <= 16 ? code : Code.Unknown));
    try {
      const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      this.settle(fromBinary(this.output, unframeGrpcMessage(body)));
    } catch (error) {
      this.settle(new ConnectError("malformed upstream response", Code.Internal, undefined, undefined, error));
    }
  }

  /**
   * A stream the service refused (a GOAWAY that left it out, a connection closing before it was
   * sent) never ran there, so it is sent once more on a fresh connection: rolling restarts and
   * connection recycling then cost callers nothing.
   */
  onAbort(error: StreamAbortedError): void {
    if (error.refused && !this.retried && !this.settled) {
      this.retried = true;
      return this.start();
    }
    this.settle(new ConnectError(`upstream unavailable: ${error.message}`, Code.Unavailable));
  }

  /**
   * The deadline passed. A service that is merely slow still answers a PING at once; one that
   * vanished does not, and the PING's timeout then retires the connection for every call on it.
   */
  private expire(): void {
    this.stream?.probe();
    this.fail(new ConnectError("upstream deadline exceeded", Code.DeadlineExceeded));
  }

  /** Gives up on the call: the stream is cancelled and the caller hears `error`. */
  private fail(error: ConnectError): void {
    this.stream?.cancel();
    this.settle(error);
  }

  private settle(outcome: MessageShape<O> | ConnectError): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    if (outcome instanceof ConnectError) this.reject(outcome);
    else this.resolve(outcome);
  }
}

/** The gRPC status of a response that carries none, from its HTTP status (gRPC's HTTP mapping). */
function statusWithoutGrpcStatus(httpStatus: string | undefined): [string, Code] {
  if (httpStatus === undefined || httpStatus === "200") return ["upstream closed the call without a status", Code.Unavailable];
  const code = { "400": Code.Internal, "401": Code.Unauthenticated, "403": Code.PermissionDenied, "404": Code.Unimplemented }[httpStatus];
  const unavailable = httpStatus === "429" || httpStatus === "502" || httpStatus === "503" || httpStatus === "504";
  return [`upstream answered HTTP ${httpStatus}`, code ?? (unavailable ? Code.Unavailable : Code.Unknown)];
}

/** `grpc-message` is percent-encoded; a malformed escape leaves the text as it came. */
function decodeGrpcMessage(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
