import type { ServerResponse } from "node:http";
import type { Message } from "@bufbuild/protobuf";
import type { Route } from "./routes";
import { fieldValueToJson, findField, messageToJson } from "./transcode";

/**
 * Writes `{"data": ...}`: the response field named by the binding's `response_body`, else the
 * whole message. A response message without fields means the operation has no payload: `data: null`.
 * `data` given (an older API version's projection) is written as it is.
 */
export function writeResponse(res: ServerResponse, route: Route, message: Message, data?: string): void {
  const body = `{"data":${data ?? dataOf(route, message)}}`;
  res.writeHead(200, ["content-type", "application/json", "content-length", String(Buffer.byteLength(body))]);
  res.end(body);
}

function dataOf(route: Route, message: Message): string {
  const schema = route.method.output;
  if (route.responseBody) {
    const field = findField(schema, [route.responseBody]);
    if (!field) throw new Error(`${route.method.name}: response_body '${route.responseBody}' does not exist`);
    return fieldValueToJson(field, (message as unknown as Record<string, unknown>)[field.localName]);
  }
  return schema.fields.length === 0 ? "null" : messageToJson(schema, message);
}
