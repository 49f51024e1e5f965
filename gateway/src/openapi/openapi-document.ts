import type { DescField, DescMessage } from "@bufbuild/protobuf";
import type { Route } from "../routes";
import { findField } from "../transcode";
import { createSchemaRegistry, type JsonSchema, type SchemaRegistry } from "./message-schemas";

/** Options of `buildOpenApiDocument`. */
export interface OpenApiOptions {
  /** `info.version`: the gateway's release. */
  version: string;
}

/** The identity and version headers every operation accepts (gateway/src/headers.ts), as parameter components. */
const HEADERS: Record<string, { name: string; description: string }> = {
  OrgId: { name: "X-Service-Org-Id", description: "The org the call acts in; needed when the caller belongs to several. Alias: X-Roboto-Org-Id." },
  UserId: { name: "X-Service-User-Id", description: "The user a system admin or service acts as. Alias: X-Roboto-User-Id." },
  ResourceOwnerId: { name: "X-Service-Resource-Owner-Id", description: "The org that owns the resource, for cross-org reads. Alias: X-Roboto-Resource-Owner-Id." },
  ApiVersion: { name: "X-Roboto-Api-Version", description: "The API version the client was written for (the roboto SDK sends it)." },
};

/** Routes the gateway answers itself, before the route table and without a token. */
const OWN_ROUTES: Record<string, { operationId: string; summary: string; contentType?: string }> = {
  "/healthz": { operationId: "Gateway_Healthz", summary: "Liveness: the gateway process answers." },
  "/readyz": { operationId: "Gateway_Readyz", summary: "Readiness: every service and its components answer (503 names the ones that do not)." },
  "/openapi.json": { operationId: "Gateway_OpenApi", summary: "This document." },
  "/metrics": { operationId: "Gateway_Metrics", summary: "Prometheus metrics of the gateway process.", contentType: "text/plain" },
};

/**
 * The OpenAPI 3.1 description of the gateway's HTTP JSON API, derived from its route table (the
 * protos' google.api.http bindings) and the request and response descriptors, so that it cannot
 * drift from what the gateway serves: every route with its path, query or body parameters, the
 * `{data: ...}` response, the error envelope, the bearer scheme and the identity headers.
 */
export function buildOpenApiDocument(routes: readonly Route[], options: OpenApiOptions): Record<string, unknown> {
  const registry = createSchemaRegistry();
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const item = (paths[openApiPath(route)] ??= {});
    item[route.httpMethod.toLowerCase()] = operation(route, registry, uniqueId(route, operationIds));
  }
  for (const [path, own] of Object.entries(OWN_ROUTES)) paths[path] = { get: ownOperation(own) };
  return {
    openapi: "3.1.0",
    info: {
      title: "Hangar API",
      version: options.version,
      description: "The HTTP JSON API of Hangar's gateway. Successful responses are `{\"data\": ...}`; errors are the error envelope.",
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "The secret of an API token." } },
      parameters: Object.fromEntries(
        Object.entries(HEADERS).map(([key, header]) => [key, { in: "header", name: header.name, required: false, description: header.description, schema: { type: "string" } }]),
      ),
      schemas: { ErrorEnvelope: ERROR_ENVELOPE, ...registry.components() },
    },
  };
}

const ERROR_ENVELOPE: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["error_code", "message", "stack_trace"],
      properties: {
        error_code: { type: "integer", description: "The HTTP status again." },
        message: { type: "string", description: "What went wrong; a bad field is named first (`name: ...`)." },
        stack_trace: { type: "string", description: "Empty unless the gateway runs in development mode." },
      },
    },
  },
};

/** `{name}` for every variable (OpenAPI has no multi-segment form: `{path=**}` becomes `{path}`). */
function openApiPath(route: Route): string {
  let path = route.template.template;
  for (const variable of route.template.variables) path = path.replace(/\{[^}]*\}/, `<${variable.name}>`);
  return path.replace(/<([^>]+)>/g, "{$1}");
}

function uniqueId(route: Route, taken: Set<string>): string {
  const base = `${route.service.name}_${route.method.name}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

function operation(route: Route, registry: SchemaRegistry, operationId: string): Record<string, unknown> {
  const input = route.method.input;
  const parameters = [...pathParameters(route, registry), ...queryParameters(route, registry), ...Object.keys(HEADERS).map((key) => ({ $ref: `#/components/parameters/${key}` }))];
  const body = route.body === undefined ? undefined : route.body === "*" ? registry.messageSchema(input) : registry.fieldSchema(findField(input, [route.body])!);
  return {
    operationId,
    tags: [route.service.name],
    summary: `${route.service.typeName}.${route.method.name}`,
    // Served without a token (hangar.common.v1.anonymous); bounded per client address, 429 beyond.
    ...(route.anonymous ? { security: [] } : {}),
    parameters,
    ...(body ? { requestBody: { required: false, content: { "application/json": { schema: body } } } } : {}),
    responses: {
      "200": jsonResponse("OK", { type: "object", required: ["data"], properties: { data: responseData(route, registry) } }),
      "503": { ...jsonResponse("A service the operation needs is unavailable: retry after Retry-After seconds.", ERROR_REF), headers: { "Retry-After": { schema: { type: "integer" } } } },
      default: jsonResponse("An error (400 names the bad field, 401 without a valid token, 404 for what the caller cannot see).", ERROR_REF),
    },
  };
}

const ERROR_REF = { $ref: "#/components/schemas/ErrorEnvelope" };

function jsonResponse(description: string, schema: JsonSchema): Record<string, unknown> {
  return { description, content: { "application/json": { schema } } };
}

/** The response's `data`: the `response_body` field, the whole message, or null for a message without fields. */
function responseData(route: Route, registry: SchemaRegistry): JsonSchema {
  const output = route.method.output;
  if (route.responseBody) return registry.fieldSchema(findField(output, [route.responseBody])!);
  return output.fields.length === 0 ? { type: "null" } : registry.messageSchema(output);
}

function pathParameters(route: Route, registry: SchemaRegistry): Record<string, unknown>[] {
  return route.template.variables.map((variable) => ({
    in: "path",
    name: variable.name,
    required: true,
    schema: stripNull(registry.fieldSchema(findField(route.method.input, variable.fieldPath)!)),
  }));
}

/** Fields neither the path nor the body carries, as query parameters (scalars, enums and their lists; dotted into singular messages). */
function queryParameters(route: Route, registry: SchemaRegistry): Record<string, unknown>[] {
  if (route.body === "*") return [];
  const bound = new Set([...route.template.variables.map((v) => v.fieldPath[0]!), ...(route.body ? [route.body] : [])]);
  return queryFields(route.method.input, "", new Set())
    .filter(({ name }) => !bound.has(name.split(".")[0]!))
    .map(({ name, field }) => ({ in: "query", name, required: false, schema: stripNull(registry.fieldSchema(field)) }));
}

function queryFields(desc: DescMessage, prefix: string, seen: Set<DescMessage>): { name: string; field: DescField }[] {
  seen.add(desc);
  return desc.fields.flatMap((field) => {
    const name = prefix + field.name;
    if (field.fieldKind === "map" || (field.fieldKind === "list" && field.listKind === "message")) return [];
    if (field.fieldKind !== "message") return [{ name, field }];
    // Query strings carry no JSON: a well-known type or a message seen already on this path is skipped.
    const nested = field.message;
    if (nested.typeName.startsWith("google.protobuf.") || seen.has(nested)) return [];
    return queryFields(nested, `${name}.`, new Set(seen));
  });
}

/** A parameter is absent rather than null. */
function stripNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) return { ...schema, type: schema.type.find((type) => type !== "null") };
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[])[0]!;
  return schema;
}

function ownOperation(own: (typeof OWN_ROUTES)[string]): Record<string, unknown> {
  const ok = own.contentType ? { description: "OK", content: { [own.contentType]: { schema: { type: "string" } } } } : jsonResponse("OK", { type: "object" });
  return { operationId: own.operationId, summary: own.summary, security: [], tags: ["Gateway"], responses: { "200": ok, default: jsonResponse("An error.", ERROR_REF) } };
}
