import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from "../auth";
import { injectTraceContext } from "../telemetry";

/**
 * Creates the gRPC (HTTP/2) transport to one service. Every call carries the active trace
 * context; the principal is attached per call by `withPrincipal`.
 */
export function createServiceTransport(baseUrl: string): Transport {
  return createGrpcTransport({ baseUrl, interceptors: [propagateTrace] });
}

const propagateTrace: Interceptor = (next) => async (req) => {
  const carrier: Record<string, string> = {};
  injectTraceContext(carrier);
  for (const [key, value] of Object.entries(carrier)) req.header.set(key, value);
  return next(req);
};

/** Call options that attach a signed principal and a deadline. */
export function withPrincipal(principal: Principal, key: string, timeoutMs = 10_000): { headers: Headers; timeoutMs: number } {
  return { headers: new Headers({ [PRINCIPAL_HEADER]: signPrincipal(principal, key) }), timeoutMs };
}

/** A client of one service that acts as a platform component (`kind: service`). */
export function createInternalClient<S extends DescService>(
  service: S,
  transport: Transport,
  component: string,
  key: string,
): { client: Client<S>; options: () => { headers: Headers; timeoutMs: number } } {
  const principal: Principal = { kind: "service", subject: component, memberships: [], isSystemAdmin: false };
  return { client: createClient(service, transport), options: () => withPrincipal(principal, key) };
}
