import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { ConnectError, Code, createConnectRouter, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import { SpanKind, SpanStatusCode, context, isSpanContextValid, trace } from "@opentelemetry/api";
import { createPrincipalVerifier, principalKey, PRINCIPAL_HEADER } from "../auth";
import { isDatabaseUnavailable } from "../db";
import { capMessage } from "../errors";
import { enforceLimits } from "../limits";
import { measureCalls } from "../metrics";
import { extractTraceContext, tracer, type Logger } from "../telemetry";
import { Health } from "../gen/grpc/health/v1/health_pb";
import { registerGrpcHealth } from "./grpc-health";
import { registerGrpcReflection } from "./grpc-reflection";
import { createInProcessEndpoint, type InProcessEndpoint } from "./in-process-endpoint";
import { MAX_REQUEST_BYTES, recordingRouter, type UnaryMethods } from "./unary-call";
import { serveUnaryGrpc } from "./unary-grpc";
import { serveUniversal, type UniversalHandlers } from "./universal-stream";

/**
 * Node's HTTP/2 flood protections, sized for the peers a service has: the gateway and other services,
 * each multiplexing every caller's calls over one connection. With the defaults, one caller's
 * trouble failed everyone's calls: responses queued for sending count against a 10 MB session
 * memory credit, past which new streams are refused with ENHANCE_YOUR_CALM and, after 100 such
 * refusals, the whole connection is destroyed; and after 1,000 cancelled calls (33 more a second)
 * nghttp2 takes the connection for a rapid-reset attack and sends GOAWAY. A service port is not
 * reachable from outside the cluster (deploy/), so these bound a buggy peer, not an attacker.
 */
export const TRUSTED_PEER_LIMITS: http2.ServerOptions & { maxSessionRejectedStreams: number } = {
  // In MB: a hundred responses of the gateway's 4 MiB maximum in flight at once.
  maxSessionMemory: 512,
  // Documented by Node, missing from @types/node; refusals past it destroy the connection.
  maxSessionRejectedStreams: 10_000,
  // A gateway cancelling every call of a busy minute (deadlines during an outage) stays far below.
  streamResetBurst: 100_000,
  streamResetRate: 10_000,
};

/** What `startRpcServer` needs. */
export interface RpcServerOptions {
  /** Service name, used in logs and spans. */
  name: string;
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Interface to bind (default 127.0.0.1; `0.0.0.0` in containers). */
  host?: string;
  /** Registers the service implementations on the router. */
  routes: (router: ConnectRouter) => void;
  /** Key that verifies the gateway-signed principal on every call. */
  internalAuthSecret: string;
  logger: Logger;
  /**
   * Serve plain unary gRPC calls on the fast path (`serveUnaryGrpc`; default true). Off, Connect's
   * handler serves every call: for comparing the two (unary-grpc-parity.spec.ts), not for production.
   */
  unaryFastPath?: boolean;
  /**
   * Refuse calls without a principal signed with `internalAuthSecret` (default true). Off only for
   * the Connect conformance suite (test/conformance), whose reference client cannot sign one.
   */
  verifyCallers?: boolean;
  /** Largest request message accepted, on both paths (default `MAX_REQUEST_BYTES`, 4 MiB). */
  readMaxBytes?: number;
  /**
   * Whether the service can do its work now, for the gRPC health protocol (`grpc.health.v1`);
   * default always. runService passes its database check.
   */
  serving?: () => Promise<boolean>;
}

/** A running RPC server. */
export interface RpcServer {
  port: number;
  /** `http://host:port`, the base URL for clients. */
  url: string;
  /**
   * The same unary methods, interceptors, deadlines and cancellation without a socket, for a caller
   * in this thread (the embedded platform's gateway): no HTTP/2 framing, no loopback hop.
   */
  inProcess: InProcessEndpoint;
  close(): Promise<void>;
}

/**
 * Starts a service behind its own HTTP/2 port speaking gRPC, gRPC-Web and Connect, so that any
 * gRPC client (including a plain `@grpc/grpc-js` one) can call it. Every call is traced, must carry
 * a verified principal and fields within their declared limits, and fails only with ConnectErrors
 * whose messages are capped in length: a database outage is `unavailable` (retryable), anything
 * else is logged with its cause and answered as a bare `internal` error, so internals never leak.
 * The same port answers the gRPC health protocol and server reflection without a principal
 * (`openRoutes`), so that probes, `grpc-health-probe`, `grpcurl` and `buf curl` work.
 */
export async function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  const verify = options.verifyCallers === false ? [] : [verifyCaller(options.internalAuthSecret)];
  // Measured outermost, so that every outcome (a refused principal, a limit) is counted.
  const interceptors = [measureCalls(options.name), traceCalls(options.name), normalizeErrors(options.logger), ...verify, enforceLimits()];
  const unary: UnaryMethods = new Map();
  // The same request size limit on both paths (Connect's own default is 4 GiB).
  const readMaxBytes = options.readMaxBytes ?? MAX_REQUEST_BYTES;
  const router = createConnectRouter({ interceptors, acceptCompression: [compressionGzip, compressionBrotli], readMaxBytes });
  options.routes(recordingRouter(router, unary));
  const handlers: UniversalHandlers = new Map(
    [...router.handlers, ...openRoutes(options, router).handlers].map((handler) => [handler.requestPath, handler]),
  );
  const server = http2.createServer(TRUSTED_PEER_LIMITS);
  // Plain unary gRPC calls take the fast path; everything else goes to Connect's handlers.
  const fastPath = options.unaryFastPath ?? true;
  server.on("stream", (stream, headers) => {
    if (!fastPath || !serveUnaryGrpc(stream, headers, unary, interceptors, readMaxBytes)) serveUniversal(stream, headers, handlers);
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  options.logger.info({ port }, `${options.name} service listening`);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
  const inProcess = createInProcessEndpoint(url, unary, interceptors, readMaxBytes);
  return {
    port,
    url,
    inProcess,
    close: () =>
      new Promise<void>((resolve) => {
        inProcess.close();
        for (const session of sessions) session.close();
        server.close(() => resolve());
      }),
  };
}

/** Largest request message the health and reflection routes accept. */
const OPEN_ROUTES_MAX_REQUEST_BYTES = 16 * 1024;

/**
 * Health and reflection, on a router of their own without the principal check: a probe or an
 * operator's `grpcurl` has no signed principal, and neither answer reveals more than the public protos.
 */
function openRoutes(options: RpcServerOptions, served: ConnectRouter): ConnectRouter {
  const router = createConnectRouter({
    interceptors: [traceCalls(options.name), normalizeErrors(options.logger)],
    // Anyone who reaches the port may call these, and the vendored protos carry no field limits: a
    // service or symbol name is all a request holds (Connect's own default would be 4 GiB).
    readMaxBytes: OPEN_ROUTES_MAX_REQUEST_BYTES,
  });
  const services = [...new Map(served.handlers.map((handler) => [handler.service.typeName, handler.service])).values()];
  registerGrpcHealth(router, { services: services.map((service) => service.typeName), serving: options.serving ?? (async () => true) });
  registerGrpcReflection(router, [...services, Health]);
  return router;
}

function verifyCaller(secret: string): Interceptor {
  const verify = createPrincipalVerifier(secret);
  return (next) => async (req) => {
    req.contextValues.set(principalKey, verify(req.header.get(PRINCIPAL_HEADER)));
    return next(req);
  };
}

function normalizeErrors(logger: Logger): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (error) {
      if (error instanceof ConnectError) throw capped(error);
      if (isDatabaseUnavailable(error)) {
        logger.warn({ err: error, procedure: req.url }, "database unavailable");
        throw new ConnectError("the database is unavailable; retry shortly", Code.Unavailable, undefined, undefined, error);
      }
      logger.error({ err: error, procedure: req.url }, "unhandled error");
      throw new ConnectError("internal error", Code.Internal, undefined, undefined, error);
    }
  };
}

/** The error with its message cut to capMessage's length, so no message can reset a stream. */
function capped(error: ConnectError): ConnectError {
  const message = capMessage(error.rawMessage);
  if (message === error.rawMessage) return error;
  const short = new ConnectError(message, error.code, error.metadata, undefined, error.cause);
  short.details = error.details;
  return short;
}

function traceCalls(service: string): Interceptor {
  return (next) => async (req) => {
    const parent = extractTraceContext({ traceparent: req.header.get("traceparent") ?? undefined });
    const span = tracer().startSpan(
      `${req.service.typeName}/${req.method.name}`,
      { kind: SpanKind.SERVER, attributes: { "rpc.system": "grpc", "hangar.service": service } },
      parent,
    );
    // Without an exporter and without a caller's trace the span is an empty no-op: making it the
    // active context would carry nothing downstream, and `context.with` was about 2% of the
    // platform thread's CPU per get_dataset (bench/cpu-layers.mjs).
    if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return next(req);
    try {
      return await context.with(trace.setSpan(parent, span), () => next(req));
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
      throw error;
    } finally {
      span.end();
    }
  };
}
