import { create, fromBinary, isMessage, type DescMethod, type DescMethodUnary, type DescService, type Message } from "@bufbuild/protobuf";
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

/** A unary method as a service registered it. */
export interface UnaryMethod {
  service: DescService;
  method: DescMethodUnary;
  impl: (request: Message, context: HandlerContext) => unknown;
}

/** Unary methods by HTTP/2 path, `/<package>.<Service>/<Method>`. */
export type UnaryMethods = Map<string, UnaryMethod>;

/** Largest request message accepted (the gRPC default), on every path into a service. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/**
 * A router that also records every unary method registered on `router`, for the paths that call
 * implementations without Connect's handler (`serveUnaryGrpc`, `createInProcessEndpoint`).
 * Everything still registers on Connect's router, which serves what those paths do not.
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

/** The response headers and trailers an implementation set before it failed. */
export interface UnaryMetadata {
  header: Headers;
  trailer: Headers;
}

/** Where a call's one outcome goes: back over the wire, or to an in-process caller. */
export interface UnaryAnswer {
  succeed(response: UnaryResponse): void;
  /** `metadata` is what the implementation set before failing, when it ran: an error answer carries it. */
  fail(error: ConnectError, metadata?: UnaryMetadata): void;
}

/** What a call carries besides its message. */
export interface UnaryCallInit {
  /** The handler context's `url`, `http://<authority>/<package>.<Service>/<Method>`. */
  url: string;
  requestHeader: Headers;
  /** The caller's deadline from now; undefined for none. */
  timeoutMs: number | undefined;
}

/**
 * One unary call's life in a service, whatever carried it: the request decoded, the interceptors
 * run around the implementation as Connect's handler runs them, the deadline enforced, the
 * implementation's signal aborted when the call is given up (deadline: DeadlineExceeded; caller
 * gone: Canceled), and exactly one outcome handed to `answer`. The HTTP/2 fast path and the
 * in-process endpoint share it, so both keep gRPC's semantics by construction.
 */
export class UnaryCall {
  private readonly controller = new AbortController();
  private deadline: NodeJS.Timeout | undefined;
  private done = false;
  /** The implementation's context, once it runs: an error answer carries the metadata it set. */
  private context: HandlerContext | undefined;

  constructor(
    private readonly spec: UnaryMethod,
    private readonly interceptors: Interceptor[],
    private readonly answer: UnaryAnswer,
  ) {}

  /** True once the call has an outcome (or was cancelled). */
  get answered(): boolean {
    return this.done;
  }

  /** Runs the call on the request message `payload()` returns (it throws ConnectErrors for bad framing). */
  async run(payload: () => Uint8Array, init: UnaryCallInit): Promise<void> {
    if (this.done) return;
    // Whole milliseconds, as Connect's handler context gives them (grpc-timeout may be in microseconds).
    const deadlineAt = init.timeoutMs === undefined ? undefined : Math.trunc(Date.now() + init.timeoutMs);
    if (init.timeoutMs !== undefined) {
      this.deadline = setTimeout(() => this.fail(new ConnectError("the operation timed out", Code.DeadlineExceeded)), init.timeoutMs);
    }
    try {
      const message = this.decode(payload());
      const response = await this.invoke(message, init, () => (deadlineAt === undefined ? undefined : deadlineAt - Date.now()));
      if (this.done) return;
      this.settle();
      this.answer.succeed(response);
    } catch (error) {
      this.fail(error instanceof ConnectError ? error : new ConnectError("internal error", Code.Internal, undefined, undefined, error));
    }
  }

  /** The caller went away before the answer: the implementation's signal is aborted with Canceled. */
  cancel(): void {
    if (this.done) return;
    this.settle();
    this.abort(new ConnectError("the client cancelled the call", Code.Canceled));
  }

  /** Answers with `error` (unless answered already), aborting the implementation's signal with it. */
  fail(error: ConnectError): void {
    if (this.done) return;
    this.settle();
    this.abort(error);
    this.answer.fail(error, this.context && { header: this.context.responseHeader, trailer: this.context.responseTrailer });
  }

  private decode(payload: Uint8Array): Message {
    try {
      return fromBinary(this.spec.method.input, payload);
    } catch (error) {
      // Connect's handler says INTERNAL here; the caller sent the bad bytes, so this is INVALID_ARGUMENT.
      throw new ConnectError("malformed request message", Code.InvalidArgument, undefined, undefined, error);
    }
  }

  /** Runs the interceptors around the implementation, as Connect's handler does. */
  private async invoke(message: Message, init: UnaryCallInit, timeoutMs: () => number | undefined): Promise<UnaryResponse> {
    const { service, method, impl } = this.spec;
    const context: HandlerContext = (this.context = {
      service,
      method,
      // In process too: the implementation sees the call as the gRPC call it stands in for.
      protocolName: "grpc",
      requestMethod: "POST",
      url: init.url,
      signal: this.controller.signal,
      timeoutMs,
      requestHeader: init.requestHeader,
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
      url: init.url,
      signal: context.signal,
      header: context.requestHeader,
      contextValues: context.values,
      message,
    });
  }

  private settle(): void {
    this.done = true;
    clearTimeout(this.deadline);
  }

  private abort(reason: ConnectError): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }
}

/** Connect's error for a request message of `size` bytes over `readMaxBytes`. */
export function requestTooLarge(size: number, readMaxBytes = MAX_REQUEST_BYTES): ConnectError {
  return new ConnectError(`message size ${size} is larger than configured readMaxBytes ${readMaxBytes}`, Code.ResourceExhausted);
}
