import type { IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import { toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor, type UnaryResponse } from "@connectrpc/connect";
import { parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { frameGrpcMessage } from "./grpc-message";
import { headerText, plainHeaders, requestHeaders } from "./http2-headers";
import { MAX_REQUEST_BYTES, requestTooLarge, UnaryCall, type UnaryAnswer, type UnaryMetadata, type UnaryMethod, type UnaryMethods } from "./unary-call";

/** Longest deadline honoured; longer ones are clamped (Connect's default has no limit either way). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Serves a unary call in the gRPC protocol with protobuf messages and no compression, which is how
 * the gateway and the platform's own clients call; returns false for anything else (Connect and
 * gRPC-Web protocols, JSON, compressed messages, streaming methods), which Connect's handler then
 * serves. Same implementations, interceptors, context and status trailers as Connect's gRPC
 * handler, without its general streaming pipeline, which cost the services about 40% of their CPU
 * per call (measured with `bench/gateway-overhead.mjs`).
 */
export function serveUnaryGrpc(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  methods: UnaryMethods,
  interceptors: Interceptor[],
  readMaxBytes = MAX_REQUEST_BYTES,
): boolean {
  const method = methods.get(headers[":path"] ?? "");
  if (method === undefined || headers[":method"] !== "POST") return false;
  const contentType = headers["content-type"];
  if (contentType !== "application/grpc" && contentType !== "application/grpc+proto") return false;
  const encoding = headers["grpc-encoding"];
  if (encoding !== undefined && encoding !== "identity") return false;
  new UnaryGrpcStream(stream, headers, method, interceptors, readMaxBytes).start();
  return true;
}

/** A unary call carried by one HTTP/2 stream: its body read, its outcome answered as gRPC. */
class UnaryGrpcStream implements UnaryAnswer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly call: UnaryCall;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly headers: IncomingHttpHeaders,
    private readonly spec: UnaryMethod,
    interceptors: Interceptor[],
    private readonly readMaxBytes: number,
  ) {
    this.call = new UnaryCall(spec, interceptors, this);
  }

  start(): void {
    const { stream, call } = this;
    stream.on("data", (chunk: Buffer) => {
      if (call.answered) return; // refused as too large: the rest is read and dropped
      this.size += chunk.length;
      this.chunks.push(chunk);
      if (this.size > this.readMaxBytes + 5) call.fail(tooLarge(this.chunks, this.readMaxBytes));
    });
    stream.on("end", () => void this.run());
    // The client went away (reset, connection lost) before the answer: tell the implementation.
    stream.on("close", () => call.cancel());
    stream.on("error", () => {});
  }

  private async run(): Promise<void> {
    const timeout = parseTimeout(headerText(this.headers["grpc-timeout"]), MAX_TIMEOUT_MS);
    if (timeout.error) return this.call.fail(timeout.error);
    await this.call.run(() => unframedRequest(this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)), {
      url: `http://${headerText(this.headers[":authority"]) ?? "localhost"}${this.headers[":path"]!}`,
      requestHeader: requestHeaders(this.headers),
      timeoutMs: timeout.timeoutMs,
    });
  }

  succeed(response: UnaryResponse): void {
    if (this.stream.closed) return;
    const framed = frameGrpcMessage(toBinary(this.spec.method.output, response.message));
    this.stream.respond({ ...plainHeaders(response.header), ":status": 200, "content-type": "application/grpc+proto" }, { waitForTrailers: true });
    this.stream.once("wantTrailers", () => this.stream.sendTrailers({ ...plainHeaders(response.trailer), "grpc-status": "0" }));
    this.stream.end(framed);
  }

  /**
   * Answers with the error and the trailers the implementation set, as a trailers-only response
   * (gRPC's form for a call without a message), or after the headers it set when it set any.
   */
  fail(error: ConnectError, metadata?: UnaryMetadata): void {
    if (this.stream.closed || this.stream.headersSent) return;
    // setTrailerStatus adds the error's metadata itself.
    const status = plainHeaders(setTrailerStatus(new Headers(metadata?.trailer), error));
    const header = plainHeaders(metadata?.header);
    if (Object.keys(header).length === 0) {
      this.stream.respond({ ...status, ":status": 200, "content-type": "application/grpc+proto" }, { endStream: true });
      return;
    }
    this.stream.respond({ ...header, ":status": 200, "content-type": "application/grpc+proto" }, { waitForTrailers: true });
    this.stream.once("wantTrailers", () => this.stream.sendTrailers(status));
    this.stream.end();
  }
}

/** The one message of a unary request body; bad framing fails with Connect's gRPC handler's codes and messages. */
function unframedRequest(body: Buffer): Buffer {
  if (body.length === 0) throw new ConnectError("protocol error: missing input message for unary method", Code.Unimplemented);
  if (body.length < 5 || body.length < 5 + body.readUInt32BE(1)) throw new ConnectError("protocol error: incomplete envelope", Code.InvalidArgument);
  if (body.length > 5 + body.readUInt32BE(1)) throw new ConnectError("protocol error: received extra input message for unary method", Code.Unimplemented);
  if (body[0] !== 0) throw new ConnectError("received compressed envelope, but do not know how to decompress", Code.Internal);
  return body.subarray(5);
}

/** Connect's error for a request over `readMaxBytes`, naming the size the frame declares. */
function tooLarge(chunks: Buffer[], readMaxBytes: number): ConnectError {
  const head = chunks[0]!.length >= 5 ? chunks[0]! : Buffer.concat(chunks);
  return requestTooLarge(head.readUInt32BE(1), readMaxBytes);
}
