import http2 from "node:http2";
import { fromBinary, toBinary, type DescMessage, type DescMethodUnary, type Message, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { injectTraceContext } from "@hangar/shared";

/** Options of one upstream call. */
export interface UnaryCallOptions {
  /** Request metadata (the signed principal). Trace context is added here. */
  headers: Record<string, string>;
  /** Deadline: sent as `grpc-timeout` and enforced locally. */
  timeoutMs: number;
}

/** A gRPC client for unary calls to one service. */
export interface GrpcUnaryClient {
  call<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>, input: Message, options: UnaryCallOptions): Promise<MessageShape<O>>;
  close(): void;
}

/** Largest response the gateway accepts from a service (the gRPC default). */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/**
 * The gateway's gRPC client: unary calls over one HTTP/2 session per service, reopened when it
 * goes away. The gateway only ever makes unary calls, and a general-purpose client's streaming
 * machinery cost about as much CPU per request as the rest of the gateway together (measured), so
 * this one speaks the gRPC wire format directly: length-prefixed protobuf, `grpc-timeout`,
 * `grpc-status` and `grpc-message` in trailers (or in headers for trailers-only errors).
 */
export function createGrpcUnaryClient(baseUrl: string): GrpcUnaryClient {
  let session: http2.ClientHttp2Session | undefined;
  const connected = (): http2.ClientHttp2Session => {
    if (!session || session.closed || session.destroyed) {
      const fresh = http2.connect(baseUrl);
      fresh.on("error", () => fresh.destroy());
      fresh.on("goaway", () => fresh.close());
      fresh.on("close", () => {
        if (session === fresh) session = undefined;
      });
      fresh.unref();
      session = fresh;
    }
    return session;
  };
  return {
    call(method, input, options) {
      const headers: Record<string, string> = { ...options.headers };
      injectTraceContext(headers);
      const stream = connected().request({
        ...headers,
        ":method": "POST",
        ":path": `/${method.parent.typeName}/${method.name}`,
        "content-type": "application/grpc+proto",
        te: "trailers",
        "grpc-timeout": `${Math.max(1, Math.ceil(options.timeoutMs))}m`,
      });
      stream.end(frame(toBinary(method.input, input as MessageShape<typeof method.input>)));
      return readResponse(stream, method.output, options.timeoutMs);
    },
    close() {
      session?.close();
      session = undefined;
    },
  };
}

function frame(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + payload.length);
  out.writeUInt8(0, 0);
  out.writeUInt32BE(payload.length, 1);
  out.set(payload, 5);
  return out;
}

function readResponse<O extends DescMessage>(stream: http2.ClientHttp2Stream, output: O, timeoutMs: number): Promise<MessageShape<O>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let status: string | undefined;
    let message: string | undefined;
    const fail = (error: ConnectError) => {
      clearTimeout(timer);
      stream.close(http2.constants.NGHTTP2_CANCEL);
      reject(error);
    };
    const timer = setTimeout(() => fail(new ConnectError("upstream deadline exceeded", Code.DeadlineExceeded)), timeoutMs);
    const readStatus = (headers: http2.IncomingHttpHeaders) => {
      if (headers["grpc-status"] !== undefined) {
        status = String(headers["grpc-status"]);
        message = headers["grpc-message"] === undefined ? "" : decodeURIComponent(String(headers["grpc-message"]));
      }
    };
    stream.on("response", readStatus);
    stream.on("trailers", readStatus);
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES + 5) return fail(new ConnectError("upstream response too large", Code.ResourceExhausted));
      chunks.push(chunk);
    });
    stream.on("error", (error) => fail(new ConnectError(`upstream unavailable: ${error.message}`, Code.Unavailable)));
    stream.on("close", () => {
      clearTimeout(timer);
      if (status === undefined) return reject(new ConnectError("upstream closed the call without a status", Code.Unavailable));
      const code = Number(status);
      if (code !== 0) return reject(new ConnectError(message ?? "", Number.isInteger(code) && code > 0 && code <= 16 ? code : Code.Unknown));
      try {
        resolve(unframe(Buffer.concat(chunks), output));
      } catch (error) {
        reject(new ConnectError("malformed upstream response", Code.Internal, undefined, undefined, error));
      }
    });
  });
}

function unframe<O extends DescMessage>(body: Buffer, output: O): MessageShape<O> {
  if (body.length < 5) throw new Error("missing response message");
  if (body.readUInt8(0) !== 0) throw new Error("compressed responses are not negotiated");
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length) throw new Error("truncated response message");
  return fromBinary(output, body.subarray(5, 5 + length));
}
