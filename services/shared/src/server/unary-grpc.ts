import type { IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import { create, fromBinary, isMessage, toBinary, type DescMethod, type DescMethodUnary, type DescService, type Message } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  createContextValues,
  createServiceImplSpec,
  type ConnectRouter,
  type HandlerContext,
  type Interceptor,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import { parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { frameGrpcMessage } from "./grpc-message";
import { headerText, plainHeaders, requestHeaders } from "./http2-headers";

/** A unary method as a service registered it. */
interface UnaryMethod {
  service: DescService;
  method: DescMethodUnary;
  impl: (request: Message, context: HandlerContext) => unknown;
}

/** Unary methods by HTTP/2 path, `/<package>.<Service>/<Method>`. */
export type UnaryMethods = Map<string, UnaryMethod>;

/** Largest request message accepted by default (the gRPC default), on the fast path and by Connect's handlers. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
/** Longest deadline honoured; longer ones are clamped (Connect's default has no limit either way). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * A router that also records every unary method registered on `router`, for `serveUnaryGrpc`.
 * Everything still registers on Connect's router, which serves what the fast path does not.
 */
export function recordingRouter(router: ConnectRouter, unary: UnaryMethods): ConnectRouter {
  const recorder: ConnectRouter = {
    get handlers() {
      return router.handlers;
    },
    service(service, implementation, options) {
      const spec = createServiceImplSpec(service, implementation);
      for (const method of service.methods) {
        if (!isUnary(method)) continue;
        const impl = spec.methods[method.localName]!.impl as UnaryMethod["impl"];
        unary.set(`/${service.typeName}/${method.name}`, { service, method, impl });
      }
      router.service(service, implementation, options);
      return recorder;
    },
    rpc(method, impl, options) {
      if (isUnary(method)) {
        unary.set(`/${method.parent.typeName}/${method.name}`, { service: method.parent, method, impl: impl as UnaryMethod["impl"] });
      }
      router.rpc(method, impl, options);
      return recorder;
    },
  };
  return recorder;
}

function isUnary(method: DescMethod): method is DescMethodUnary {
  return method.methodKind === "unary";
}

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
  new UnaryGrpcCall(stream, headers, method, interceptors, readMaxBytes).start();
  return true;
}

class UnaryGrpcCall {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly controller = new AbortController();
  private deadline: NodeJS.Timeout | undefined;
  private answered = false;
  /** The implementation's context, once it runs: an error answer carries the metadata it set. */
  private context: HandlerContext | undefined;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly headers: IncomingHttpHeaders,
    private readonly spec: UnaryMethod,
    private readonly interceptors: Interceptor[],
    private readonly readMaxBytes: number,
  ) {}

  start(): void {
    const { stream } = this;
    stream.on("data", (chunk: Buffer) => {
      if (this.answered) return; // refused as too large: the rest is read and dropped
      this.size += chunk.length;
      this.chunks.push(chunk);
      if (this.size > this.readMaxBytes + 5) this.fail(tooLarge(this.chunks, this.readMaxBytes));
    });
    stream.on("end", () => void this.run());
    // The client went away (reset, connection lost) before the answer: tell the implementation.
    stream.on("close", () => {
      if (this.answered) return;
      this.settle();
      this.abort(new ConnectError("the client cancelled the call", Code.Canceled));
    });
    stream.on("error", () => {});
  }

  private async run(): Promise<void> {
    if (this.answered) return;
    const timeout = parseTimeout(headerText(this.headers["grpc-timeout"]), MAX_TIMEOUT_MS);
    if (timeout.error) return this.fail(timeout.error);
    // Whole milliseconds, as Connect's handler context gives them (grpc-timeout may be in microseconds).
    const deadlineAt = timeout.timeoutMs === undefined ? undefined : Math.trunc(Date.now() + timeout.timeoutMs);
    if (timeout.timeoutMs !== undefined) {
      this.deadline = setTimeout(() => this.fail(new ConnectError("the operation timed out", Code.DeadlineExceeded)), timeout.timeoutMs);
    }
    try {
      const message = this.readRequest();
      const response = await this.invoke(message, () => (deadlineAt === undefined ? undefined : deadlineAt - Date.now()));
      this.succeed(response);
    } catch (error) {
      this.fail(error instanceof ConnectError ? error : new ConnectError("internal error", Code.Internal, undefined, undefined, error));
    }
  }

  private readRequest(): Message {
    const payload = unframedRequest(this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks));
    try {
      return fromBinary(this.spec.method.input, payload);
    } catch (error) {
      // Connect's handler says INTERNAL here; the caller sent the bad bytes, so this is INVALID_ARGUMENT.
      throw new ConnectError("malformed request message", Code.InvalidArgument, undefined, undefined, error);
    }
  }

  /** Runs the interceptors around the implementation, as Connect's handler does. */
  private async invoke(message: Message, timeoutMs: () => number | undefined): Promise<UnaryResponse> {
    const { service, method, impl } = this.spec;
    const url = `http://${headerText(this.headers[":authority"]) ?? "localhost"}${this.headers[":path"]!}`;
    const context: HandlerContext = (this.context = {
      service,
      method,
      protocolName: "grpc",
      requestMethod: "POST",
      url,
      signal: this.controller.signal,
      timeoutMs,
      requestHeader: requestHeaders(this.headers),
      responseHeader: new Headers(),
      responseTrailer: new Headers(),
      values: createContextValues(),
    });
    const call = async (request: UnaryRequest): Promise<UnaryResponse> => {
      const output = await impl(request.message, context);
      return {
        stream: false,
        service,
        method,
        header: context.responseHeader,
        trailer: context.responseTrailer,
        message: isMessage(output, method.output) ? output : create(method.output, output as never),
      };
    };
    const next = this.interceptors.reduceRight<(request: UnaryRequest) => Promise<UnaryResponse>>((inner, interceptor) => interceptor(inner as never) as never, call);
    return next({
      stream: false,
      service,
      method,
      requestMethod: "POST",
      url,
      signal: context.signal,
      header: context.requestHeader,
      contextValues: context.values,
      message,
    });
  }

  private succeed(response: UnaryResponse): void {
    if (this.answered) return;
    this.settle();
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
  private fail(error: ConnectError): void {
    if (this.answered) return;
    this.settle();
    this.abort(error);
    if (this.stream.closed || this.stream.headersSent) return;
    // setTrailerStatus adds the error's metadata itself.
    const status = plainHeaders(setTrailerStatus(new Headers(this.context?.responseTrailer), error));
    const header = plainHeaders(this.context?.responseHeader);
    if (Object.keys(header).length === 0) {
      this.stream.respond({ ...status, ":status": 200, "content-type": "application/grpc+proto" }, { endStream: true });
      return;
    }
    this.stream.respond({ ...header, ":status": 200, "content-type": "application/grpc+proto" }, { waitForTrailers: true });
    this.stream.once("wantTrailers", () => this.stream.sendTrailers(status));
    this.stream.end();
  }

  private settle(): void {
    this.answered = true;
    clearTimeout(this.deadline);
  }

  private abort(reason: ConnectError): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
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
  return new ConnectError(`message size ${head.readUInt32BE(1)} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted);
}
