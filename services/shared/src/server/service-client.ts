import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { DescService } from "@bufbuild/protobuf";
import type { ServiceName } from "../config";
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from "../auth";
import { unavailable } from "../errors";

/** Where a service finds its peers: a name to a base URL, or undefined when that peer is unknown. */
export type ServiceLocator = (name: ServiceName) => string | undefined;

/**
 * A gRPC client for a peer service that acts as the calling service within one org. Services
 * call each other with a service principal signed by the internal key, like the gateway does for
 * users; the peer applies its usual org scoping to it.
 */
export function peerClient<S extends DescService>(options: {
  service: S;
  peer: ServiceName;
  locate: ServiceLocator;
  caller: ServiceName;
  orgId: string;
  internalAuthSecret: string;
  timeoutMs?: number;
}): Client<S> {
  const baseUrl = options.locate(options.peer);
  if (!baseUrl) throw unavailable(`the ${options.peer} service is not configured (${options.peer.toUpperCase()}_SERVICE_URL)`);
  const principal: Principal = {
    kind: "service",
    subject: options.caller,
    orgId: options.orgId,
    memberships: [{ orgId: options.orgId, roles: ["service"] }],
    isSystemAdmin: false,
  };
  const sign: Interceptor = (next) => (req) => {
    req.header.set(PRINCIPAL_HEADER, signPrincipal(principal, options.internalAuthSecret));
    return next(req);
  };
  return createClient(options.service, transportFor(baseUrl, sign, options.timeoutMs ?? 30_000));
}

function transportFor(baseUrl: string, sign: Interceptor, timeoutMs: number) {
  return createGrpcTransport({ baseUrl, interceptors: [sign], defaultTimeoutMs: timeoutMs });
}
