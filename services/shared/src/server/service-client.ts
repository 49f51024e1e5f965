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
  return signedClient({ service: options.service, baseUrl, principal, internalAuthSecret: options.internalAuthSecret, timeoutMs: options.timeoutMs });
}

/**
 * peerClient per org, kept for reuse (each client holds an HTTP/2 connection) up to `maxOrgs`,
 * the oldest dropped first. For services that call a peer on behalf of many orgs.
 */
export function peerClients<S extends DescService>(options: Omit<Parameters<typeof peerClient<S>>[0], "orgId"> & { maxOrgs?: number }): (orgId: string) => Client<S> {
  const { maxOrgs = 256, ...rest } = options;
  const clients = new Map<string, Client<S>>();
  return (orgId) => {
    let client = clients.get(orgId);
    if (!client) {
      if (clients.size >= maxOrgs) clients.delete(clients.keys().next().value!);
      client = peerClient({ ...rest, orgId });
      clients.set(orgId, client);
    }
    return client;
  };
}

/**
 * A gRPC client that signs every call with `principal` (freshly, as signatures expire within a
 * minute). peerClient builds on it; platform components outside the services (runners) use it
 * directly with a service principal of their own.
 */
export function signedClient<S extends DescService>(options: {
  service: S;
  baseUrl: string;
  principal: Principal;
  internalAuthSecret: string;
  timeoutMs?: number | undefined;
}): Client<S> {
  const sign: Interceptor = (next) => (req) => {
    req.header.set(PRINCIPAL_HEADER, signPrincipal(options.principal, options.internalAuthSecret));
    return next(req);
  };
  return createClient(options.service, createGrpcTransport({ baseUrl: options.baseUrl, interceptors: [sign], defaultTimeoutMs: options.timeoutMs ?? 30_000 }));
}
