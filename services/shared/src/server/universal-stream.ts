import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import { PassThrough } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerResponse } from "@connectrpc/connect/protocol";
import { headerText, plainHeaders, requestHeaders } from "./http2-headers";

/** Connect's universal handlers by request path, `/<package>.<Service>/<Method>`. */
export type UniversalHandlers = Map<string, UniversalHandler>;

/**
 * Serves one HTTP/2 stream with Connect's universal handler for its path (every protocol, codec,
 * compression and streaming kind Connect supports), through the public stream API: no compatibility
 * request/response objects, and nothing that depends on how Node wires them up. A path without a
 * handler gets 404, as with `connectNodeAdapter`.
 */
export function serveUniversal(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, handlers: UniversalHandlers): void {
  // Failures show up as 'close' (and an aborted signal); without a listener an 'error' would throw.
  stream.on("error", () => {});
  const path = headers[":path"] ?? "";
  const handler = handlers.get(path.split("?", 1)[0]!);
  if (handler === undefined) {
    stream.respond({ ":status": 404 }, { endStream: true });
    return;
  }
  const controller = new AbortController();
  stream.once("close", () => controller.abort(new ConnectError("the client cancelled the call", Code.Canceled)));
  const request = {
    httpVersion: "2.0",
    method: headers[":method"] ?? "",
    url: `http://${headerText(headers[":authority"]) ?? "localhost"}${path}`,
    header: requestHeaders(headers),
    // Through a pipe: a handler that stops reading early (a malformed message) ends its iteration,
    // which destroys what it iterates, and the stream itself must live on to carry the error.
    body: stream.pipe(new PassThrough()),
    signal: controller.signal,
  };
  handler(request)
    .then((response) => writeResponse(stream, response))
    .catch(() => stream.close(constants.NGHTTP2_INTERNAL_ERROR));
}

/** Writes headers after the body's first chunk (the implementation may still add headers), then the body with back-pressure, then trailers. */
async function writeResponse(stream: ServerHttp2Stream, response: UniversalServerResponse): Promise<void> {
  const body = response.body?.[Symbol.asyncIterator]();
  try {
    let chunk = await body?.next();
    if (stream.closed) return;
    const trailer = response.trailer;
    stream.respond({ ...plainHeaders(response.header), ":status": response.status }, { waitForTrailers: trailer !== undefined });
    if (trailer !== undefined) stream.once("wantTrailers", () => stream.sendTrailers(plainHeaders(trailer)));
    for (; chunk !== undefined && chunk.done !== true; chunk = await body!.next()) {
      if (!stream.write(chunk.value)) await drained(stream);
      if (stream.closed) return;
    }
    stream.end();
  } finally {
    await body?.return?.();
    // A handler that answered before reading the whole request (one over the size limit) left the
    // rest unread: drop it, or the client, blocked by flow control, never finishes the call.
    stream.unpipe();
    stream.resume();
  }
}

/** Resolves when the stream can take more data, or is gone. */
function drained(stream: ServerHttp2Stream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.once("drain", done);
    stream.once("close", done);
  });
}
