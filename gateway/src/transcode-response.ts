import type { ServerResponse } from "node:http";
import type { Message } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { MAX_RESPONSE_BYTES } from "./grpc-unary-client";
import type { Route } from "./routes";
import { fieldValueToPlain, findField, messageToPlain } from "./transcode";

/**
 * Largest JSON body the gateway answers an operation with. Over gRPC the service's response is
 * bounded as protobuf (MAX_RESPONSE_BYTES) before it is read; in process the gateway receives the
 * message object itself, so the bound is taken here, on what it writes, and both modes hold it.
 * Four times the protobuf bound: JSON spells field names where protobuf has one-byte tags and
 * base64 for bytes, so a response the services keep within the protobuf bound (see fitPage) fits.
 */
export const MAX_RESPONSE_JSON_BYTES = 4 * MAX_RESPONSE_BYTES;

/**
 * Writes `{"data": ...}`: the response field named by the binding's `response_body`, else the
 * whole message. A response message without fields means the operation has no payload: `data: null`.
 * `data` given (an older API version's projection) is written as it is.
 */
export function writeResponse(res: ServerResponse, route: Route, message: Message, data?: string): void {
  // One JSON.stringify of the whole body: its text is flat, with no copy to join it to the envelope.
  const body = data === undefined ? JSON.stringify({ data: dataOf(route, message) }) : `{"data":${data}}`;
  const bytes = Buffer.byteLength(body);
  if (bytes > MAX_RESPONSE_JSON_BYTES) throw new ConnectError("upstream response too large", Code.ResourceExhausted);
  res.writeHead(200, ["content-type", "application/json", "content-length", String(bytes)]);
  // Written as text, Node joins the body to the header block (a Buffer body is one more chunk of the
  // socket's write). ASCII text (its UTF-8 length is its length: nearly every response) is copied
  // byte for byte as latin1, not encoded; bench:topic-page-cpu measures that at an eighth of
  // encoding a topic page's 250 KiB.
  res.end(body, bytes === body.length ? "latin1" : "utf8");
}

function dataOf(route: Route, message: Message): unknown {
  const schema = route.method.output;
  if (route.responseBody) {
    const field = findField(schema, [route.responseBody]);
    if (!field) throw new Error(`${route.method.name}: response_body '${route.responseBody}' does not exist`);
    return fieldValueToPlain(field, (message as unknown as Record<string, unknown>)[field.localName]);
  }
  return schema.fields.length === 0 ? null : messageToPlain(schema, message);
}
