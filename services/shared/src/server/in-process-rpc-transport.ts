import { clone, toBinary, type DescMessage, type DescMethodUnary, type Message, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextValues, type Interceptor, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { createMethodUrl, runUnaryCall } from "@connectrpc/connect/protocol";
import type { InProcessEndpoint } from "./in-process-endpoint";

const paths = new WeakMap<DescMethodUnary, string>();

/** The gRPC path of a method, `/<package>.<Service>/<Method>` (as in-process endpoints key them), built once per method. */
export function methodPath(method: DescMethodUnary): string {
  let path = paths.get(method);
  if (path === undefined) paths.set(method, (path = `/${method.parent.typeName}/${method.name}`));
  return path;
}

/**
 * A Connect transport to a peer service running in this thread (the embedded default): the calls a
 * gRPC transport would make, through the caller's interceptors (which sign the principal) and the
 * peer's own (`createInProcessEndpoint`), with the same deadline, cancellation and error codes,
 * without HTTP/2 over loopback. Measured on `invoke_action`, whose compute handler asks the data
 * service for the dataset: Connect's HTTP/2 client and the peer's server side were a fifth of the
 * platform thread's CPU. The request is protobuf-encoded, as on the wire; the response is a copy
 * of the peer's message, so neither side can change what the other holds. Unary only: no peer
 * call streams.
 */
export function inProcessRpcTransport(endpoint: InProcessEndpoint, options: { interceptors?: Interceptor[]; defaultTimeoutMs: number }): Transport {
  return {
    unary(method, signal, timeoutMs, header, input, contextValues) {
      const timeout = timeoutMs ?? options.defaultTimeoutMs;
      const deadline = Date.now() + timeout;
      return runUnaryCall({
        interceptors: options.interceptors ?? [],
        signal,
        timeoutMs: timeout,
        req: {
          stream: false,
          service: method.parent,
          method,
          requestMethod: "POST",
          url: createMethodUrl(endpoint.url, method),
          header: new Headers(header),
          contextValues: contextValues ?? createContextValues(),
          message: input,
        },
        next: async (req) => {
          const metadata: Record<string, string> = {};
          req.header.forEach((value, name) => (metadata[name] = value));
          const request = toBinary(method.input, req.message as MessageShape<typeof method.input>);
          const answer = await endpoint.call(methodPath(method), request, { metadata, timeoutMs: Math.max(1, deadline - Date.now()), signal: req.signal });
          return responseOf(method, answer);
        },
      });
    },
    stream() {
      return Promise.reject(new ConnectError("streaming calls are not served in process", Code.Unimplemented));
    },
  };
}

function responseOf<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>, answer: Message): UnaryResponse<I, O> {
  return {
    stream: false,
    service: method.parent,
    method,
    header: new Headers(),
    trailer: new Headers(),
    message: clone(method.output, answer as MessageShape<O>),
  };
}
