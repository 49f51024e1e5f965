import { createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import type { DescService } from "@bufbuild/protobuf";
import type { ServiceName } from "../config";
import { PRINCIPAL_HEADER, signPrincipal, type Principal } from "../auth";
import { unavailable } from "../errors";
import type { InProcessEndpoint } from "./in-process-endpoint";
import { inProcessRpcTransport } from "./in-process-rpc-transport";

/**
 * Where a peer service is: its RPC base URL and, when it runs in this thread (the embedded
 * default), its in-process endpoint, which calls then take instead of the socket.
 */
export interface PeerLocation {
  url: string;
  inProcess?: InProcessEndpoint;
}

/** Where a service finds its peers, by name; undefined when that peer is unknown. */
export type ServiceLocator = (name: ServiceName) => PeerLocation | undefined;

/**
 * A transport to a peer: in process when it runs in this thread, gRPC over HTTP/2 otherwise;
 * `close` ends its connection (nothing to end in process).
 */
export function peerTransport(peer: PeerLocation, options: { interceptors: Interceptor[]; timeoutMs?: number | undefined }): { transport: Transport; close(): void } {
  const defaultTimeoutMs = options.timeoutMs ?? 30_000;
  if (peer.inProcess) return { transport: inProcessRpcTransport(peer.inProcess, { interceptors: options.interceptors, defaultTimeoutMs }), close() {} };
  const sessionManager = new Http2SessionManager(peer.url);
  return {
    transport: createGrpcTransport({ baseUrl: peer.url, interceptors: options.interceptors, defaultTimeoutMs, sessionManager }),
    close: () => sessionManager.abort(),
  };
}

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
  const location = options.locate(options.peer);
  if (!location) throw unavailable(`the ${options.peer} service is not configured (${options.peer.toUpperCase()}_SERVICE_URL)`);
  const principal: Principal = {
    kind: "service",
    subject: options.caller,
    orgId: options.orgId,
    memberships: [{ orgId: options.orgId, roles: ["service"] }],
    isSystemAdmin: false,
  };
  const signed = signing(principal, options.internalAuthSecret);
  return createClient(options.service, peerTransport(location, { interceptors: [signed], timeoutMs: options.timeoutMs }).transport);
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
 * minute). Platform components outside the services (runners) use it with a service principal of
 * their own; services reach their peers with peerClient.
 */
export function signedClient<S extends DescService>(options: {
  service: S;
  baseUrl: string;
  principal: Principal;
  internalAuthSecret: string;
  timeoutMs?: number | undefined;
}): Client<S> {
  const signed = signing(options.principal, options.internalAuthSecret);
  return createClient(options.service, peerTransport({ url: options.baseUrl }, { interceptors: [signed], timeoutMs: options.timeoutMs }).transport);
}

/** Signs every call with `principal`, freshly (signatures expire within a minute). */
function signing(principal: Principal, internalAuthSecret: string): Interceptor {
  return (next) => (req) => {
    req.header.set(PRINCIPAL_HEADER, signPrincipal(principal, internalAuthSecret));
    return next(req);
  };
}
