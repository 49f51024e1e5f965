import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { create, type DescMethodUnary, type Message } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { SpanKind, SpanStatusCode, context, trace, type Context, type Span } from "@opentelemetry/api";
import { createPrincipalSigner, PRINCIPAL_HEADER, tracer, type Logger, type Principal, type ServiceName } from "@hangar/shared";
import { AdminService, AuthenticateTokenRequestSchema, ResolveUserRequestSchema } from "@hangar/shared/proto/admin";
import type { GrpcUnaryClient } from "./grpc-unary-client";
import type { SessionOptions } from "./h2/session";
import { createAuthenticator, type Authenticator } from "./auth";
import { answerClientError, MAX_HEADER_BYTES } from "./client-error";
import { writeError } from "./errors";
import { readIdentityHeaders } from "./headers";
import { healthEndpoints, type HealthEndpoint } from "./health";
import { serviceDiscovery, SERVICE_DISCOVERY_PATH } from "./service-discovery";
import { ownRouteAt, type OwnRoute } from "./own-routes";
import { anonymousPrincipal, clientAddress, createAnonymousLimiter, type AnonymousLimiter } from "./anonymous";
import { answerMetrics, countUpstreamErrors, createGatewayMetrics, type GatewayMetrics } from "./metrics";
import { openApiEndpoint } from "./openapi";
import { buildRouteTable, type Route } from "./routes";
import { buildRequest, readBody } from "./transcode-request";
import { writeResponse } from "./transcode-response";
import { checkRequest, projectResponse, readApiVersion, routeForVersion } from "./transcode-version";
import { createUpstreams, SERVICES, type Upstream } from "./upstreams";
import type { Router } from "./pattern";

/** Options of the gateway. */
export interface GatewayOptions {
  /** HTTP port; 0 picks a free one. */
  port: number;
  host?: string;
  /**
   * Each service's RPC base URL, or its in-process endpoint when it runs in this thread (the
   * embedded default): the same calls without the loopback hop.
   */
  upstreams: Record<ServiceName, Upstream>;
  internalAuthSecret: string;
  authCacheTtlMs: number;
  /** Error bodies carry stack traces only in development. */
  development: boolean;
  logger: Logger;
  /** Deadline of each upstream call (default 30 s). */
  timeoutMs?: number;
  /** Called after each request that matched a route or an own route (OWN_ROUTES), with its final status (the test suite's route log). */
  onServed?: (served: { httpMethod: string; template: string }, status: number) => void;
  /** Largest accepted request body (default 16 MiB). */
  maxBodyBytes?: number;
  /**
   * The base URL clients reach this gateway at (`PUBLIC_URL`); unset: each request's Host over
   * http. The service discovery document and the CLI sign-in's URLs are built on it.
   */
  publicUrl?: string;
  /** The upstream connections' keepalive and reset budget (defaults: `SessionOptions`). */
  upstreamConnection?: SessionOptions;
}

/** A running gateway. */
export interface Gateway {
  port: number;
  url: string;
  routes: Route[];
  close(): Promise<void>;
}

/**
 * Starts the HTTP JSON gateway: `/healthz`, `/readyz` (./health) and the service discovery document
 * (./service-discovery) answer without a token; routes
 * come from the services' google.api.http bindings, every other request is authenticated,
 * transcoded to a protobuf request, sent over gRPC with a deadline and a signed principal, and the
 * response wrapped in the `{data: ...}` envelope.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { router, routes } = buildRouteTable(Object.values(SERVICES));
  const upstreams = countUpstreamErrors(createUpstreams(options.upstreams, options.upstreamConnection));
  const gatewayPrincipal: Principal = { kind: "service", subject: "gateway", memberships: [], isSystemAdmin: false };
  const admin = upstreams.get(AdminService.typeName)!;
  const sign = createPrincipalSigner(options.internalAuthSecret);
  const asGateway = (traceContext: Context) => ({ headers: { [PRINCIPAL_HEADER]: sign(gatewayPrincipal) }, timeoutMs: 10_000, traceContext });
  const authenticate = createAuthenticator({
    authenticateToken: (secret, traceContext) =>
      admin.call(AdminService.method.authenticateToken, create(AuthenticateTokenRequestSchema, { secret }), asGateway(traceContext)),
    resolveUser: (userId, traceContext) =>
      admin.call(AdminService.method.resolveUser, create(ResolveUserRequestSchema, { userId }), asGateway(traceContext)),
    ttlMs: options.authCacheTtlMs,
  });
  // The probes, the service discovery document, the API's description and the metrics: answered
  // before route matching, without a token.
  const health = new Map<string, HealthEndpoint>([
    ...healthEndpoints({ upstreams, asGateway }),
    [SERVICE_DISCOVERY_PATH, serviceDiscovery(options.publicUrl)],
    ["/openapi.json", openApiEndpoint(routes)],
    ["/metrics", answerMetrics],
  ]);
  const metrics = createGatewayMetrics(routes);
  const handle = createHandler({ ...options, router, upstreams, authenticate, sign, health, metrics, limitAnonymous: createAnonymousLimiter() });
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => void handle(req, res));
  server.on("clientError", (error, socket) => answerClientError(error, socket as Socket));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    routes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const upstream of upstreams.values()) upstream.close();
      }),
  };
}

interface HandlerDeps extends Omit<GatewayOptions, "upstreams"> {
  router: Router<Route>;
  upstreams: Map<string, GrpcUnaryClient>;
  authenticate: Authenticator;
  /** Signs the principal header (reusing a fresh signature of the same cached principal). */
  sign: (principal: Principal) => string;
  /** `/healthz`, `/readyz` (`healthEndpoints`), the service discovery document, `/openapi.json` and `/metrics`, by path. */
  health: Map<string, HealthEndpoint>;
  metrics: GatewayMetrics;
  limitAnonymous: AnonymousLimiter;
}

function createHandler(deps: HandlerDeps) {
  const httpTracer = tracer();
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const served: Served = {};
    const span = httpTracer.startSpan(`HTTP ${req.method}`, { kind: SpanKind.SERVER, attributes: { "http.request.method": req.method ?? "" } });
    try {
      await serve(deps, req, res, served, span);
    } catch (error) {
      if (!(error instanceof ConnectError) || error.code === Code.Internal || error.code === Code.Unknown) {
        deps.logger.error({ err: error, method: req.method, url: req.url }, "request failed");
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      writeError(res, error, deps.development);
    } finally {
      span.setAttribute("http.response.status_code", res.statusCode);
      span.end();
      const logged = served.route ? { httpMethod: served.route.httpMethod, template: served.route.template.template } : served.own;
      if (logged) deps.onServed?.(logged, res.statusCode);
      deps.metrics.served(served.route, res.statusCode, (performance.now() - started) / 1000);
    }
  };
}

/** What a request was served by: a proto route, or one of the gateway's own spec operations. */
interface Served {
  route?: Route;
  own?: OwnRoute;
}

async function serve(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse, served: Served, span: Span): Promise<void> {
  const url = req.url ?? "/";
  const queryAt = url.indexOf("?");
  const rawPath = queryAt < 0 ? url : url.slice(0, queryAt);
  const query = new URLSearchParams(queryAt < 0 ? "" : url.slice(queryAt + 1));
  // The upstream calls carry this span as their parent (passed explicitly: cheaper than making it
  // the active context for the whole request).
  const traceContext = trace.setSpan(context.active(), span);
  // Probes carry no token and must not depend on the route table.
  const health = req.method === "GET" ? deps.health.get(rawPath) : undefined;
  if (health) {
    span.updateName(`GET ${rawPath}`);
    served.own = ownRouteAt(req.method, rawPath);
    return health(res, traceContext, query, req);
  }
  const match = deps.router.match(req.method ?? "GET", rawPath);
  if ("error" in match) {
    if (match.error === "method_not_allowed") {
      res.setHeader("allow", match.allowed.join(", "));
      return writeError(res, new ConnectError(`method ${req.method} is not allowed on ${rawPath}`), deps.development, 405);
    }
    throw new ConnectError(`no operation at ${req.method} ${rawPath}`, Code.NotFound);
  }
  const version = readApiVersion(req.headers);
  const route = routeForVersion(match.value, version);
  served.route = route;
  span.updateName(`${route.httpMethod} ${route.template.template}`);
  const principal = route.anonymous ? admitAnonymous(deps, route, req, res) : await deps.authenticate(readIdentityHeaders(req.headers), traceContext);
  const maxBodyBytes = deps.maxBodyBytes ?? 16 * 1024 * 1024;
  const bodyText = route.body ? await readBody(req, route.anonymous?.maxBodyBytes ?? maxBodyBytes, maxBodyBytes) : "";
  const input: Message = buildRequest(route, match.rawParams, query, bodyText);
  checkRequest(route, version, input);
  const upstream = deps.upstreams.get(route.service.typeName)!;
  const response = await upstream.call(route.method as DescMethodUnary, input, {
    headers: { [PRINCIPAL_HEADER]: deps.sign(principal) },
    timeoutMs: deps.timeoutMs ?? 30_000,
    traceContext,
  });
  writeResponse(res, route, response, projectResponse(route, version, response));
}

/** An operation served without a token: within its per-address bound, as the anonymous principal (any token sent is ignored). */
function admitAnonymous(deps: HandlerDeps, route: Route, req: IncomingMessage, res: ServerResponse): Principal {
  deps.limitAnonymous(`${route.httpMethod} ${route.template.template}`, clientAddress(req), route.anonymous!.requestsPerMinute, res);
  return anonymousPrincipal(req, deps.publicUrl);
}
