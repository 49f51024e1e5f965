import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { ConnectError, Code, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import { createPrincipalVerifier, principalKey, PRINCIPAL_HEADER } from "../auth";
import { isDatabaseUnavailable } from "../db";
import { capMessage } from "../errors";
import { enforceLimits } from "../limits";
import { extractTraceContext, tracer, type Logger } from "../telemetry";
import { recordingRouter, serveUnaryGrpc, type UnaryMethods } from "./unary-grpc";

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
}

/** A running RPC server. */
export interface RpcServer {
  port: number;
  /** `http://host:port`, the base URL for clients. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a service behind its own HTTP/2 port speaking gRPC, gRPC-Web and Connect, so that any
 * gRPC client (including a plain `@grpc/grpc-js` one) can call it. Every call is traced, must carry
 * a verified principal and fields within their declared limits, and fails only with ConnectErrors
 * whose messages are capped in length: a database outage is `unavailable` (retryable), anything
 * else is logged with its cause and answered as a bare `internal` error, so internals never leak.
 */
export async function startRpcServer(options: RpcServerOptions): Promise<RpcServer> {
  const interceptors = [traceCalls(options.name), normalizeErrors(options.logger), verifyCaller(options.internalAuthSecret), enforceLimits()];
  const unary: UnaryMethods = new Map();
  const handler = connectNodeAdapter({ routes: (router) => options.routes(recordingRouter(router, unary)), interceptors });
  const server = http2.createServer(handler);
  servePlainUnaryCallsFirst(server, unary, interceptors);
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
  return {
    port,
    url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.close();
        server.close(() => resolve());
      }),
  };
}

/**
 * Puts the unary gRPC fast path in front of Connect's handler: each new stream goes to
 * `serveUnaryGrpc` first, and only what it declines reaches the compatibility layer that turns
 * streams into the requests Connect's Node adapter reads.
 */
function servePlainUnaryCallsFirst(server: http2.Http2Server, unary: UnaryMethods, interceptors: Interceptor[]): void {
  const compatibility = server.listeners("stream");
  if (compatibility.length !== 1) throw new Error(`expected Node's one compatibility 'stream' listener, found ${compatibility.length}`);
  const toConnect = compatibility[0] as (...args: unknown[]) => void;
  server.removeAllListeners("stream");
  server.on("stream", (stream, headers, flags, rawHeaders) => {
    if (!serveUnaryGrpc(stream, headers, unary, interceptors)) toConnect.call(server, stream, headers, flags, rawHeaders);
  });
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
