import { create, isFieldSet, type DescField, type Message } from "@bufbuild/protobuf";
import { badRequest } from "@hangar/shared";
import type { Route } from "./routes";
import { decodePlusSegment } from "./pattern";
import { findField, isJsonObject, jsonToMessage, messageForm, readJsonBody, setFieldFromJson, setFieldFromString } from "./transcode";

/**
 * Builds an RPC's request message from the HTTP request: the body (all of it for `body: "*"`, or
 * into one field), then path variables, then query parameters for fields neither the path nor the
 * body carries. A `body: "*"` binding strictly takes no query parameters, but the client SDK sends
 * some beside a body (`POST /v1/actions/{name}/invoke?digest=...`), so they fill what the body left unset. Path variables are decoded with "plus" semantics: SDK clients encode `+` as `%2B` in path
 * segments, so a bare `+` can only be a space (quote_plus), and treating it so serves both encodings.
 */
export function buildRequest(route: Route, rawParams: Record<string, string>, query: URLSearchParams, bodyText: string): Message {
  const schema = route.method.input;
  const provided = new Set(Object.keys(rawParams).map((name) => name.split(".")[0]!));
  let message: Message;
  if (route.body === "*") {
    message = jsonToMessage(schema, bodyText.trim() === "" ? {} : readJsonBody(bodyText), "", { provided });
    for (const field of schema.fields) if (isFieldSet(message, field)) provided.add(field.name);
  } else {
    message = create(schema);
    if (route.body) {
      const field = findField(schema, [route.body]);
      if (!field) throw new Error(`${route.method.name}: body field '${route.body}' does not exist`);
      if (bodyText.trim() !== "") setBodyField(message, field, readJsonBody(bodyText));
    }
  }
  for (const [name, raw] of Object.entries(rawParams)) setFieldFromString(schema, message, name.split("."), decodePlusSegment(raw));
  applyQuery(message, route, query, provided);
  return message;
}

/**
 * Fills the field a binding's `body` names. The client sends that field's value as the whole body
 * and never sees the field's name, so error paths start at the body: `limit`, not `query.limit`.
 */
function setBodyField(message: Message, field: DescField, json: unknown): void {
  const fieldsAtTop = field.fieldKind === "message" && messageForm(field.message) === "message";
  if (fieldsAtTop && json !== null && !isJsonObject(json)) throw badRequest("request body must be a JSON object");
  setFieldFromJson(message, field, json, fieldsAtTop ? "" : "body");
}

function applyQuery(message: Message, route: Route, query: URLSearchParams, provided: Set<string>): void {
  for (const [key, value] of query) {
    const path = key.split(".");
    if (provided.has(path[0]!) || path[0] === route.body) continue;
    const field = findField(route.method.input, path);
    // Unknown parameters are ignored, as unknown body fields are: clients of other versions send them.
    if (!field || field.fieldKind === "message" || field.fieldKind === "map") continue;
    setFieldFromString(route.method.input, message, path, value);
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a request body up to `limit` bytes; larger bodies, and bodies that are not UTF-8 (RFC 8259
 * requires it; decoding leniently would store U+FFFD in place of the client's bytes), are a 400.
 * A body over `limit` but within `drainLimit` is read to its end and dropped before the 400: left
 * half read, its connection stalled, and a keep-alive client's next request on it got no answer
 * (an operation with a small limit of its own, such as a sign-in request's, met a 1 MiB body).
 */
export async function readBody(req: AsyncIterable<Buffer>, limit: number, drainLimit = limit): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > drainLimit) throw badRequest(`request body exceeds ${limit} bytes`);
    if (size <= limit) chunks.push(chunk);
  }
  if (size > limit) throw badRequest(`request body exceeds ${limit} bytes`);
  try {
    return strictUtf8.decode(Buffer.concat(chunks));
  } catch {
    throw badRequest("request body is not valid UTF-8");
  }
}
