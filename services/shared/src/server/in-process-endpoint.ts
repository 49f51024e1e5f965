import type { Message } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor, type UnaryResponse } from "@connectrpc/connect";
import { MAX_REQUEST_BYTES, requestTooLarge, UnaryCall, type UnaryAnswer, type UnaryMethods } from "./unary-call";

/** One call on an in-process endpoint, as a gRPC call carries it. */
export interface InProcessCallOptions {
  /** Request metadata (the signed principal, trace context), lower-case names. */
  metadata: Record<string, string>;
  /** The deadline, as `grpc-timeout` would carry it (whole milliseconds, at least 1). */
  timeoutMs: number;
  /** Aborted when the caller gives the call up: the implementation's signal then says Canceled, as for a reset stream. */
  signal?: AbortSignal;
}

/**
 * A service's unary methods, callable from the same thread without a socket. The request arrives
 * protobuf-encoded and is decoded here, as on the wire: the service works on its own copy (it
 * cannot alias or change the caller's message) and the request size limit holds. The response is
 * handed back as the message object the implementation answered with, not encoded and decoded
 * again (that was most of the call's protobuf cost); the caller only reads it and bounds what it
 * forwards itself (the gateway: the JSON body it writes). Every call goes through the service's
 * own interceptors (tracing, error normalization, the signed principal, field limits), deadline
 * and cancellation, as a gRPC call does (`UnaryCall`, shared with the HTTP/2 fast path).
 */
export interface InProcessEndpoint {
  /** The service's RPC URL, which the call's handler context names as gRPC's would. */
  readonly url: string;
  /**
   * Calls the method at `path` (`/<package>.<Service>/<Method>`) with a protobuf-encoded request;
   * resolves the response message (the caller must not change it) or rejects with the ConnectError a gRPC client would
   * read from the status (code and message; an unknown method is UNIMPLEMENTED).
   */
  call(path: string, request: Uint8Array, options: InProcessCallOptions): Promise<Message>;
  /**
   * Refuses every later call as a stopped server's port does (UNAVAILABLE), so a caller in the same
   * process sees a stopped service as a remote caller would. The service's server calls it on close.
   */
  close(): void;
}

/** The in-process endpoint of the unary methods a service registered (see `startRpcServer`). */
/** `readMaxBytes` bounds the request message as the service's gRPC paths do (default 4 MiB). */
export function createInProcessEndpoint(url: string, methods: UnaryMethods, interceptors: Interceptor[], readMaxBytes = MAX_REQUEST_BYTES): InProcessEndpoint {
  let closed = false;
  return {
    url,
    close: () => void (closed = true),
    call(path, request, options) {
      if (closed) return Promise.reject(new ConnectError(`the service at ${url} has stopped`, Code.Unavailable));
      const spec = methods.get(path);
      if (spec === undefined) return Promise.reject(new ConnectError(`no method ${path.slice(0, 200)}`, Code.Unimplemented));
      return new Promise((resolve, reject) => {
        const answer: UnaryAnswer = {
          succeed: (response: UnaryResponse) => resolve(response.message),
          // What a gRPC client reads from the status: the code and the (already capped) message.
          fail: (error) => reject(new ConnectError(error.rawMessage, error.code)),
        };
        const call = new UnaryCall(spec, interceptors, answer);
        const { signal } = options;
        if (signal?.aborted) return reject(new ConnectError("the client cancelled the call", Code.Canceled));
        const cancel = () => {
          call.cancel();
          reject(new ConnectError("the client cancelled the call", Code.Canceled));
        };
        signal?.addEventListener("abort", cancel, { once: true });
        void call
          .run(() => checkedSize(request, readMaxBytes), {
            url: `${url}${path}`,
            requestHeader: new Headers(options.metadata),
            timeoutMs: Math.max(1, Math.ceil(options.timeoutMs)),
          })
          .finally(() => signal?.removeEventListener("abort", cancel));
      });
    },
  };
}

function checkedSize(request: Uint8Array, readMaxBytes: number): Uint8Array {
  if (request.length > readMaxBytes) throw requestTooLarge(request.length, readMaxBytes);
  return request;
}
