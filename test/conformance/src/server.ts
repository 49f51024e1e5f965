// The server under test of the Connect conformance suite (`connectconformance --mode server`, see
// scripts/conformance.sh): the ConformanceService served by the services' own start-up,
// `startRpcServer`, with the unary fast path on (`--unary-fast-path=on`) or off (`=off`).
import { readFileSync } from "node:fs";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { startRpcServer } from "@hangar/shared";
import pino from "pino";
import { HTTPVersion } from "./gen/connectrpc/conformance/v1/config_pb";
import { ServerCompatRequestSchema, ServerCompatResponseSchema, type ServerCompatRequest } from "./gen/connectrpc/conformance/v1/server_compat_pb";
import { registerConformanceService } from "./conformance-service";

async function main(): Promise<void> {
  const unaryFastPath = fastPathArgument(process.argv.slice(2));
  const request = readCompatRequest();
  if (request.useTls) throw new Error("TLS is not supported: the services listen on h2c behind the cluster network");
  if (request.httpVersion !== HTTPVersion.HTTP_VERSION_2) throw new Error(`HTTP version ${HTTPVersion[request.httpVersion]} is not supported: the services speak HTTP/2 only`);
  const server = await startRpcServer({
    name: "conformance",
    port: 0,
    routes: registerConformanceService,
    // Unused: the reference client cannot sign principals, so verification is off.
    internalAuthSecret: "conformance",
    verifyCallers: false,
    // stdout carries the ServerCompatResponse; logs go to stderr, which the runner shows.
    logger: pino({ name: "conformance", level: "warn" }, pino.destination(2)),
    unaryFastPath,
    // The suite's limit (200 KB) tells requests at the limit from requests past it; 0 means none given.
    ...(request.messageReceiveLimit > 0 ? { readMaxBytes: request.messageReceiveLimit } : {}),
  });
  const response = toBinary(ServerCompatResponseSchema, create(ServerCompatResponseSchema, { host: "127.0.0.1", port: server.port }));
  process.stdout.write(sizeDelimited(response));
  // The runner stops the server with SIGTERM once its cases are done; nothing is left to save.
  process.once("SIGTERM", () => process.exit(0));
}

function fastPathArgument(args: string[]): boolean {
  if (args.length === 1 && args[0] === "--unary-fast-path=on") return true;
  if (args.length === 1 && args[0] === "--unary-fast-path=off") return false;
  throw new Error("usage: server.js --unary-fast-path=on|off");
}

/** The one size-delimited message on stdin: a 4-byte big-endian length, then the message. */
function readCompatRequest(): ServerCompatRequest {
  const input = readFileSync(process.stdin.fd);
  if (input.length < 4 || input.length !== 4 + input.readUInt32BE(0)) throw new Error("stdin does not hold one size-delimited ServerCompatRequest");
  return fromBinary(ServerCompatRequestSchema, input.subarray(4));
}

function sizeDelimited(message: Uint8Array): Buffer {
  const out = Buffer.alloc(4 + message.length);
  out.writeUInt32BE(message.length, 0);
  out.set(message, 4);
  return out;
}

main().catch((error: unknown) => {
  process.stderr.write(`conformance server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
