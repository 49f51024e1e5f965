import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { writeJson } from "../errors";
import type { Route } from "../routes";
import { buildOpenApiDocument } from "./openapi-document";

export { buildOpenApiDocument, type OpenApiOptions } from "./openapi-document";
export { createSchemaRegistry, type JsonSchema, type SchemaRegistry } from "./message-schemas";

/**
 * The gateway's OpenAPI document for its route table, versioned as the gateway package; what
 * `GET /openapi.json` serves and `npm run build` writes to gateway/dist/api/openapi.json.
 */
export function gatewayOpenApiDocument(routes: readonly Route[]): Record<string, unknown> {
  // gateway/package.json, from src/openapi and from dist/openapi alike.
  const { version } = JSON.parse(readFileSync(path.join(__dirname, "../../package.json"), "utf8")) as { version: string };
  return buildOpenApiDocument(routes, { version });
}

/**
 * `GET /openapi.json`: the document, serialized once at start-up (the route table does not change
 * while the gateway runs), answered without a token like the health endpoints.
 */
export function openApiEndpoint(routes: readonly Route[]): (res: ServerResponse) => Promise<void> {
  const text = JSON.stringify(gatewayOpenApiDocument(routes));
  return async (res) => writeJson(res, 200, text);
}
